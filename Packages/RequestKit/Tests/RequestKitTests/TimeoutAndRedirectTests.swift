import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct TimeoutAndRedirectTests {
    private static let stall: TestServer.Handler = { _ in
        TestResponse(status: 200, body: .stall(prefix: Data("{\"partial\":".utf8), declaredLength: 100))
    }

    @Test func aServerStallingMidBodyRunsIntoTheOverallTimeout() async throws {
        var configuration = RequestClient.Configuration()
        configuration.timeouts = Timeouts(overall: .milliseconds(300))
        try await withClient(configuration: configuration, handler: Self.stall) { client, _ in
            await #expect {
                _ = try await client.get("x")
            } throws: { error in
                (error as? RequestKitError)?.code == .timedOut
            }
        }
    }

    @Test func aServerStallingMidBodyRunsIntoTheTransportReadTimeout() async throws {
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.readTimeout = .milliseconds(300)
        try await withClient(transportConfiguration: transportConfiguration, handler: Self.stall) { client, _ in
            await #expect {
                _ = try await client.get("x")
            } throws: { error in
                (error as? RequestKitError)?.code == .timedOut
            }
        }
    }

    @Test func crossOriginRedirectsDropCredentialsAndSameOriginOnesKeepThem() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { other in
            let target = other.baseURL.appending(path: "landed").absoluteString
            let redirecting: TestServer.Handler = { request in
                switch request.path {
                case "/away": TestResponse(status: 302, headers: [("Location", target)])
                case "/here": TestResponse(status: 302, headers: [("Location", "/landed")])
                default: await TestServer.echo(request)
                }
            }
            var configuration = RequestClient.Configuration()
            configuration.headerFields[.authorization] = "Bearer secret"
            try await withClient(configuration: configuration, handler: redirecting) { client, _ in
                let away = try await client.get("away", as: EchoedRequest.self)
                #expect(away.path == "/landed")
                #expect(away.authorization == "")
                let here = try await client.get("here", as: EchoedRequest.self)
                #expect(here.path == "/landed")
                #expect(here.authorization == "Bearer secret")
            }
        }
    }

    @Test func redirectLoopsStopAtTheLimit() async throws {
        let loop: TestServer.Handler = { request in
            let next = (Int(request.path.dropFirst()) ?? 0) + 1
            return TestResponse(status: 302, headers: [("Location", "/\(next)")])
        }
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.maximumRedirects = 3
        try await withClient(transportConfiguration: transportConfiguration, handler: loop) { client, server in
            await #expect {
                _ = try await client.get("0")
            } throws: { error in
                (error as? RequestKitError)?.code == .tooManyRedirects
            }
            #expect(server.receivedRequests.count == 4)
        }
    }
}

struct PerAttemptTimeoutTests {
    @Test func aServerThatSendsNoHeadRunsIntoThePerAttemptTimeout() async throws {
        let release = Signal()
        let silent: TestServer.Handler = { _ in
            await release.wait()
            return .status(200)
        }
        try await withClient(handler: silent) { client, _ in
            await #expect {
                _ = try await client.makeRequest(.get, "x").timeouts(Timeouts(perAttempt: .milliseconds(200))).submit()
            } throws: { error in
                (error as? RequestKitError)?.code == .timedOut
            }
            release.fire()
        }
    }
}
