import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Header fields marked sensitive travel like `Authorization`: never across origins, never into logs.
struct SensitiveHeaderTests {
    private static let apiKey = HTTPField.Name("X-Api-Key")!
    private static let session = HTTPField.Name("X-Session")!
    private static let trace = HTTPField.Name("X-Trace")!

    /// A server that redirects `/away` to `target` and `/here` to its own `/landed`, and records the rest.
    private static func redirecting(to target: String) -> TestServer.Handler {
        { request in
            switch request.path {
            case "/away": TestResponse(status: 307, headers: [("Location", target)])
            case "/here": TestResponse(status: 307, headers: [("Location", "/landed")])
            case "/see-other": TestResponse(status: 303, headers: [("Location", target)])
            default: .status(200)
            }
        }
    }

    @Test func sensitiveFieldsAreDroppedWhenARedirectLeavesTheOrigin() async throws {
        try await TestServer.withTestServer(handler: { _ in .status(200) }) { other in
            let target = other.baseURL.appending(path: "landed").absoluteString
            var configuration = RequestClient.Configuration()
            configuration.sensitiveHeaderNames = [Self.apiKey]
            configuration.headerFields[Self.apiKey] = "client-key"
            try await withClient(configuration: configuration, handler: Self.redirecting(to: target)) { client, home in
                for path in ["away", "here"] {
                    _ = try await client.makeRequest(.put, path)
                        .header(Self.session, "per-request-secret", sensitive: true)
                        .header(Self.trace, "visible")
                        .header(.authorization, "Bearer secret")
                        .parameters(["plate": "AB 1"])
                        .submit()
                }
                let away = try #require(other.receivedRequests.first)
                #expect(away.method == "PUT")
                #expect(away.text == #"{"plate":"AB 1"}"#)
                #expect(away.header("x-trace") == "visible")
                #expect(away.header("x-api-key") == nil)
                #expect(away.header("x-session") == nil)
                #expect(away.header("authorization") == nil)
                let here = try #require(home.receivedRequests.last)
                #expect(here.path == "/landed")
                #expect(here.header("x-api-key") == "client-key")
                #expect(here.header("x-session") == "per-request-secret")
                #expect(here.header("authorization") == "Bearer secret")
            }
        }
    }

    @Test func seeOtherContinuesAsAGetWithoutTheBody() async throws {
        try await TestServer.withTestServer(handler: { _ in .status(200) }) { other in
            let target = other.baseURL.appending(path: "landed").absoluteString
            try await withClient(handler: Self.redirecting(to: target)) { client, _ in
                _ = try await client.post("see-other", parameters: ["plate": "AB 1"])
                let landed = try #require(other.receivedRequests.first)
                #expect(landed.method == "GET")
                #expect(landed.body.isEmpty)
                #expect(landed.header("content-type") == nil)
            }
        }
    }

    @Test func sensitiveFieldsAreRedactedInLogs() async throws {
        let logs = InMemoryLogHandler.keepingEverything()
        let logger = Logger(label: "test") { _ in logs }
        var configuration = RequestClient.Configuration()
        configuration.sensitiveHeaderNames = [Self.apiKey]
        configuration.headerFields[Self.apiKey] = "client-key"
        configuration.observers = [LoggingObserver(logger: logger)]
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, _ in
            _ = try await client.makeRequest(.get, "x").header(Self.session, "per-request-secret", sensitive: true)
                .submit()
        }
        let text = logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!text.isEmpty)
        #expect(!text.contains("client-key"))
        #expect(!text.contains("per-request-secret"))
    }
}
