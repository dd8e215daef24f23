import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Synchronization
import Testing

/// The secure client sends to its environment's origin and nowhere else, by any path.
struct HostLockTests {
    /// Counts the requests a middleware saw.
    final class Seen: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    private static func bearer(_ seen: Seen) -> RequestDecorator {
        RequestDecorator { request in
            seen.add()
            request.headerFields[.authorization] = "Bearer secret"
        }
    }

    @Test func sendingAFullRequestToAForeignHostIsRefusedBeforeAnyMiddleware() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { foreign in
            let seen = Seen()
            var configuration = RequestClient.Configuration()
            configuration.middleware = [Self.bearer(seen)]
            try await withClient(configuration: configuration, handler: TestServer.echo) { client, home in
                let request = ClientRequest(method: .get, url: foreign.baseURL.appending(path: "steal"))
                await #expect {
                    _ = try await client.send(request)
                } throws: { error in
                    (error as? RequestKitError)?.code == .invalidPath
                }
                #expect(seen.value == 0)
                #expect(foreign.receivedRequests.isEmpty)

                // The same call on the environment's own origin goes through the middleware.
                let response = try await client.send(
                    ClientRequest(method: .get, url: home.baseURL.appending(path: "mine"))
                )
                let echo = try JSONDecoder().decode(
                    EchoedRequest.self,
                    from: try await response.body.collect(upTo: 1 << 20)
                )
                #expect(echo.authorization == "Bearer secret")
                #expect(seen.value == 1)
            }
        }
    }

    @Test func aMiddlewareThatPointsARequestElsewhereIsRefusedAndNothingIsSent() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { foreign in
            let elsewhere = foreign.baseURL.appending(path: "steal")
            var configuration = RequestClient.Configuration()
            configuration.middleware = [
                RequestDecorator { request in
                    request.headerFields[.authorization] = "Bearer secret"
                    request.url = elsewhere
                }
            ]
            try await withClient(configuration: configuration, handler: TestServer.echo) { client, home in
                await #expect {
                    _ = try await client.get("vehicles")
                } throws: { error in
                    (error as? RequestKitError)?.code == .invalidPath
                }
                await #expect {
                    _ = try await client.send(ClientRequest(method: .get, url: home.baseURL.appending(path: "x")))
                } throws: { error in
                    (error as? RequestKitError)?.code == .invalidPath
                }
                #expect(foreign.receivedRequests.isEmpty)
                #expect(home.receivedRequests.isEmpty)
            }
        }
    }

    @Test func aStepThatMovesARequestWithinTheOriginIsSentThere() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware = [
            RequestDecorator { request in
                // A new URL value for the same origin: only its path and query differ.
                var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
                components.path = "/moved"
                components.query = "from=step"
                request.url = components.url!
            }
        ]
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, home in
            _ = try await client.get("vehicles")
            #expect(home.receivedRequests.map(\.target) == ["/moved?from=step"])
        }
    }

    @Test func anEndpointDecoratorBehindAStepThatPointsElsewhereIsRefusedAndNothingIsSent() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { foreign in
            let elsewhere = foreign.baseURL.appending(path: "steal")
            let seen = Seen()
            var configuration = RequestClient.Configuration()
            configuration.middleware = [Self.bearer(seen)]
            let stealing = Endpoint(.get, "me", as: EchoedRequest.self).decorated { request in
                request.url = elsewhere
            }
            let staying = Endpoint(.get, "me", as: EchoedRequest.self).decorated { request in
                request.headerFields[HTTPField.Name("X-Decorated")!] = "yes"
            }
            try await withClient(configuration: configuration, handler: TestServer.echo) { client, home in
                await #expect {
                    _ = try await client.send(stealing)
                } throws: { error in
                    (error as? RequestKitError)?.code == .invalidPath
                }
                #expect(foreign.receivedRequests.isEmpty)
                #expect(home.receivedRequests.isEmpty)

                // The configured step runs first, then the endpoint's decorator, then the transport.
                let echo = try await client.send(staying)
                #expect(echo.authorization == "Bearer secret")
                #expect(seen.value == 2)
                #expect(home.receivedRequests.count == 1)
            }
        }
    }

    @Test(arguments: [
        "//evil.example/x", "///evil.example/x", "evil.example:8080/x", "http:evil.example/x", "https:x",
        "/evil.example:80/x", "\\\\evil.example\\x", "vehicles\\..\\..\\x", "mailto:someone@example.com",
    ])
    func pathsThatCouldNameAnotherHostAreRefusedUpFront(path: String) async throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:9/api/")
        #expect {
            _ = try environment.url(for: path)
        } throws: { error in
            (error as? RequestKitError)?.code == .invalidPath
        }
        try await withClient(handler: TestServer.echo) { client, server in
            await #expect {
                _ = try await client.get(path)
            } throws: { error in
                (error as? RequestKitError)?.code == .invalidPath
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func colonsAfterTheFirstSegmentAndDotSlashAreStillPaths() throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:9/api/")
        #expect(try environment.url(for: "vehicles/a:b").absoluteString == "http://127.0.0.1:9/api/vehicles/a:b")
        #expect(try environment.url(for: "./items:batchGet").absoluteString == "http://127.0.0.1:9/api/items:batchGet")
        #expect(
            try environment.url(for: "/vehicles?at=10:30").absoluteString == "http://127.0.0.1:9/api/vehicles?at=10:30"
        )
        #expect(try environment.url(for: "../../up").absoluteString == "http://127.0.0.1:9/up")
    }

    @Test func theOriginComparisonKnowsDefaultPortsAndCase() throws {
        let environment = try ServiceEnvironment(name: "production", baseURL: "https://API.example.com/v2/")
        #expect(environment.contains(try #require(URL(string: "https://api.example.com:443/other"))))
        #expect(!environment.contains(try #require(URL(string: "http://api.example.com/v2/"))))
        #expect(!environment.contains(try #require(URL(string: "https://api.example.com:8443/v2/"))))
        #expect(!environment.contains(try #require(URL(string: "https://api.example.com.evil.example/v2/"))))
    }
}
