import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// The HTTP cache in front of a real loopback server that counts what reaches it.
struct HTTPCacheLoopbackTests {
    let clock = CacheTestClock()

    func configuration(_ cache: HTTPCache? = nil) -> RequestClient.Configuration {
        var configuration = RequestClient.Configuration()
        configuration.cache = cache ?? HTTPCache(now: clock.read)
        return configuration
    }

    /// A handler answering `/fleet` with a count of the requests it saw and the given header fields, and 304 to a
    /// request whose `If-None-Match` is `"v1"`.
    static func countingHandler(
        _ headers: [(name: String, value: String)],
        status: @escaping @Sendable (Int) -> Int = { _ in 200 }
    ) -> TestServer.Handler {
        let count = LockedValue(0)
        return { request in
            count.update { $0 += 1 }
            let seen = count.value
            if request.header("if-none-match") == "\"v1\"", status(seen) == 200 {
                return TestResponse(status: 304, headers: headers)
            }
            return TestResponse(
                status: status(seen),
                headers: [("Content-Type", "text/plain")] + headers,
                body: .data(Data("answer \(seen)".utf8))
            )
        }
    }

    @Test func aFreshHitSendsNothingToTheServer() async throws {
        let handler = Self.countingHandler([("Cache-Control", "max-age=60")])
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            #expect(try await client.get("fleet").value.text == "answer 1")
            let hit = try await client.get("fleet")
            #expect(hit.value.text == "answer 1")
            #expect(hit.headerFields[cacheStatusName] == "RequestKit; hit; ttl=60")
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func afterMaxAgeAnETagRevalidationGets304AndTheStoredBody() async throws {
        let handler = Self.countingHandler([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            _ = try await client.get("fleet")
            clock.advance(61)
            let revalidated = try await client.get("fleet")
            #expect(revalidated.status == .ok)
            #expect(revalidated.value.text == "answer 1")
            #expect(revalidated.headerFields[cacheStatusName] == "RequestKit; fwd=stale; fwd-status=304; stored")
            #expect(server.receivedRequests.count == 2)
            #expect(server.receivedRequests[1].header("if-none-match") == "\"v1\"")
            _ = try await client.get("fleet")
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func varyKeepsOneAnswerPerLanguage() async throws {
        let handler: TestServer.Handler = { request in
            TestResponse(
                headers: [
                    ("Content-Type", "text/plain"), ("Cache-Control", "max-age=60"),
                    ("Vary", "Accept-Language, Accept-Encoding"),
                ],
                body: .data(Data((request.header("accept-language") ?? "none").utf8))
            )
        }
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            for language in ["de", "en", "de", "en"] {
                let response = try await client.makeRequest(.get, "greeting").header(.acceptLanguage, language)
                    .submit()
                #expect(response.value.text == language)
            }
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func noStoreAnswersAreFetchedEveryTime() async throws {
        let handler = Self.countingHandler([("Cache-Control", "no-store")])
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            _ = try await client.get("fleet")
            #expect(try await client.get("fleet").value.text == "answer 2")
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func aPostInvalidatesTheStoredAnswer() async throws {
        let handler = Self.countingHandler([("Cache-Control", "max-age=60")])
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            _ = try await client.get("fleet")
            _ = try await client.post("fleet", parameters: ["plate": "AB 1"])
            #expect(try await client.get("fleet").value.text == "answer 3")
            #expect(server.receivedRequests.map(\.method) == ["GET", "POST", "GET"])
        }
    }

    @Test func staleIfErrorServesTheStoredAnswerOnA503() async throws {
        let handler = Self.countingHandler(
            [("Cache-Control", "max-age=10, stale-if-error=600")],
            status: { $0 == 1 ? 200 : 503 }
        )
        try await withClient(configuration: configuration(), handler: handler) { client, server in
            _ = try await client.get("fleet")
            clock.advance(30)
            let stale = try await client.get("fleet")
            #expect(stale.value.text == "answer 1")
            #expect(
                stale.headerFields[cacheStatusName] == "RequestKit; fwd=stale; fwd-status=503; detail=stale-if-error"
            )
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func staleIfErrorAndOnlyIfCachedAnswerWhenTheServerIsGone() async throws {
        let cache = HTTPCache(now: clock.read)
        let handler = Self.countingHandler([("Cache-Control", "max-age=10, stale-if-error=600")])
        let server = try await TestServer.start(handler: handler)
        let baseURL = server.baseURL
        do {
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environment = try ServiceEnvironment(name: "test", baseURL: baseURL)
                let client = RequestClient(
                    environment: environment,
                    transport: transport,
                    configuration: configuration(cache)
                )
                _ = try await client.get("fleet")
            }
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
        var settings = AsyncHTTPClientTransport.Configuration()
        settings.retriesConnectionEstablishment = false
        try await AsyncHTTPClientTransport.withTransport(configuration: settings) { transport in
            let environment = try ServiceEnvironment(name: "test", baseURL: baseURL)
            let client = RequestClient(
                environment: environment,
                transport: transport,
                configuration: configuration(cache)
            )
            clock.advance(30)
            let stale = try await client.get("fleet")
            #expect(stale.value.text == "answer 1")
            #expect(stale.headerFields[cacheStatusName] == "RequestKit; fwd=stale; detail=stale-if-error")
            let offline = try await client.makeRequest(.get, "fleet").cachePolicy(.onlyIfCached).submit()
            #expect(offline.value.text == "answer 1")
            let missing = await #expect(throws: RequestKitError.self) {
                try await client.makeRequest(.get, "elsewhere").cachePolicy(.onlyIfCached).submit()
            }
            #expect(missing?.code == .notCached)
        }
    }
}
