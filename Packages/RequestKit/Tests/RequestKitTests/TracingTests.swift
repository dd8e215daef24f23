import Foundation
import HTTPTypes
import InMemoryTracing
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing
import Tracing

/// Spans of requests and attempts, recorded by swift-distributed-tracing's in-memory tracer, against a real loopback
/// server that sees the propagated context.
struct TracingTests {
    let tracer = InMemoryTracer()

    func configuration() -> RequestClient.Configuration {
        var configuration = RequestClient.Configuration()
        configuration.tracer = tracer
        return configuration
    }

    func spans(named name: String) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.operationName == name }
    }

    @Test func aRetriedRequestIsOneSpanWithAChildPerAttemptUnderTheCallersSpan() async throws {
        let count = LockedValue(0)
        let handler: TestServer.Handler = { _ in
            count.update { $0 += 1 }
            return count.value == 1 ? TestResponse.status(503) : .json(#"{"ok":true}"#)
        }
        var configuration = configuration()
        configuration.retryPolicy = RetryPolicy(
            maximumAttempts: 3,
            initialBackoff: .milliseconds(10),
            jitter: .none
        )
        try await withClient(configuration: configuration, handler: handler) { client, server in
            try await tracer.withSpan("outer") { _ in
                _ = try await client.get("vehicles/7")
            }
            let outer = try #require(spans(named: "outer").first)
            let request = try #require(spans(named: "GET").first { $0.kind == .internal })
            let attempts = spans(named: "GET").filter { $0.kind == .client }
            #expect(request.parentSpanID == outer.spanID)
            #expect(request.traceID == outer.traceID)
            #expect(attempts.count == 2)
            #expect(attempts.allSatisfy { $0.parentSpanID == request.spanID && $0.traceID == outer.traceID })

            #expect(request.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
            #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            #expect(request.attributes["requestkit.operation"]?.toSpanAttribute() == .string("GET vehicles/7"))
            #expect(request.attributes["server.address"]?.toSpanAttribute() == .string("127.0.0.1"))
            #expect(request.attributes["http.response.body.size"]?.toSpanAttribute() == .int64(11))
            #expect(request.status == nil)

            let first = try #require(
                attempts.first { $0.attributes["requestkit.attempt"]?.toSpanAttribute() == .int64(1) }
            )
            let second = try #require(
                attempts.first { $0.attributes["requestkit.attempt"]?.toSpanAttribute() == .int64(2) }
            )
            #expect(first.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
            #expect(first.attributes["error.type"]?.toSpanAttribute() == .string("503"))
            #expect(first.status?.code == .error)
            #expect(first.attributes["http.request.resend_count"] == nil)
            #expect(second.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
            #expect(second.attributes["requestkit.retry.reason"]?.toSpanAttribute() == .string("503"))
            #expect(second.attributes["requestkit.retry.delay"]?.toSpanAttribute() == .double(0.01))
            #expect(second.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))

            // Each attempt carried its own span's context to the server.
            let sent = server.receivedRequests.map { $0.header(InMemoryTracer.spanIDKey) }
            #expect(sent == [first.spanID, second.spanID])
            #expect(server.receivedRequests.allSatisfy { $0.header(InMemoryTracer.traceIDKey) == outer.traceID })
            #expect(tracer.activeSpans.isEmpty)
        }
    }

    @Test func aRevalidationAndAHitCarryTheCacheResult() async throws {
        let clock = CacheTestClock()
        var configuration = configuration()
        configuration.cache = HTTPCache(now: clock.read)
        let handler: TestServer.Handler = { request in
            if request.header("if-none-match") == "\"v1\"" {
                return TestResponse(status: 304, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
            }
            return TestResponse(
                headers: [("Content-Type", "text/plain"), ("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")],
                body: .data(Data("answer".utf8))
            )
        }
        try await withClient(configuration: configuration, handler: handler) { client, server in
            _ = try await client.get("fleet")
            clock.advance(61)
            _ = try await client.get("fleet")
            _ = try await client.get("fleet")
            #expect(server.receivedRequests.count == 2)

            let requests = spans(named: "GET").filter { $0.kind == .internal }
            let attempts = spans(named: "GET").filter { $0.kind == .client }
            #expect(requests.count == 3)
            // Spans are recorded as they end: the miss, the revalidation, then the hit, which sent nothing.
            let results = requests.map { $0.attributes["requestkit.cache.result"]?.toSpanAttribute() }
            #expect(results == [.string("miss"), .string("revalidated"), .string("hit")])
            #expect(
                requests[1].attributes["requestkit.cache.status"]?.toSpanAttribute()
                    == .string("fwd=stale; fwd-status=304; stored")
            )
            #expect(attempts.count == 2)
            #expect(attempts[1].parentSpanID == requests[1].spanID)
            #expect(attempts[1].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(304))
            #expect(!attempts.contains { $0.parentSpanID == requests[2].spanID })
        }
    }

    @Test func aFailedRequestRecordsItsErrorType() async throws {
        try await withClient(configuration: configuration(), handler: { _ in .status(404) }) { client, _ in
            await #expect(throws: RequestKitError.self) { try await client.get("missing") }
            let request = try #require(spans(named: "GET").first { $0.kind == .internal })
            #expect(request.attributes["error.type"]?.toSpanAttribute() == .string("404"))
            #expect(request.status?.code == .error)
        }
    }

    @Test func anEndpointNamesItsRequestSpan() async throws {
        let endpoint = Endpoint<ResponseContent>(.get, "vehicles/7", name: "vehicles.get")
        try await withClient(configuration: configuration(), handler: { _ in .json("{}") }) { client, _ in
            _ = try await client.send(endpoint)
            let request = try #require(spans(named: "vehicles.get").first)
            #expect(request.kind == .internal)
            #expect(request.attributes["requestkit.operation"]?.toSpanAttribute() == .string("vehicles.get"))
            // An unnamed endpoint's default name holds its path, so its span is named after the method.
            _ = try await client.send(Endpoint<ResponseContent>(.get, "vehicles/8"))
            #expect(spans(named: "GET").contains { $0.kind == .internal })
        }
    }

    @Test func aCancelledRequestLeavesNoSpanOpen() async throws {
        let arrived = Signal()
        let handler: TestServer.Handler = { _ in
            arrived.fire()
            return TestResponse(status: 200, body: .stall(prefix: Data("partial".utf8), declaredLength: 1_000))
        }
        try await withClient(configuration: configuration(), handler: handler) { client, _ in
            let task = Task { try await client.get("slow") }
            await arrived.wait()
            task.cancel()
            _ = await task.result
            #expect(tracer.activeSpans.isEmpty)
            let request = try #require(spans(named: "GET").first { $0.kind == .internal })
            #expect(request.attributes["error.type"]?.toSpanAttribute() == .string("cancelled"))
        }
    }

    @Test func anAttemptTheConnectionPoolQueuedSaysItWaited() async throws {
        let arrived = Signal()
        let release = Signal()
        let handler: TestServer.Handler = { request in
            if request.path.hasSuffix("first") {
                arrived.fire()
                await release.wait()
            }
            return .json("{}")
        }
        var transport = AsyncHTTPClientTransport.Configuration()
        transport.maximumConnectionsPerHost = 1
        try await withClient(configuration: configuration(), transportConfiguration: transport, handler: handler) {
            client,
            _ in
            async let first = client.get("first")
            await arrived.wait()
            async let second = client.get("second")
            // The second attempt is queued behind the first, which the server holds until the wait is recorded.
            for _ in 0..<200 where !tracer.activeSpans.contains(where: { !$0.events.isEmpty }) {
                try await Task.sleep(for: .milliseconds(10))
            }
            release.fire()
            _ = try await (first, second)
            let attempts = spans(named: "GET").filter { $0.kind == .client }
            let waited = attempts.filter { $0.events.contains { $0.name == RequestTracing.connectionPoolWaitEvent } }
            #expect(attempts.count == 2)
            #expect(waited.count == 1)
            #expect(
                waited.first?.events.first?.attributes["requestkit.connection_pool.limit"]?.toSpanAttribute()
                    == .int64(1)
            )
        }
    }

    @Test func withoutATracerNothingIsSentOrRecorded() async throws {
        var configuration = RequestClient.Configuration()
        configuration.tracer = nil
        try await withClient(configuration: configuration, handler: { _ in .json("{}") }) { client, server in
            try await tracer.withSpan("outer") { _ in
                _ = try await client.get("vehicles")
            }
            #expect(server.receivedRequests.first?.header(InMemoryTracer.spanIDKey) == nil)
            #expect(tracer.finishedSpans.map(\.operationName) == ["outer"])
        }
    }

    @Test func theDefaultIsTheTracerTheApplicationInstalled() {
        #expect(RequestClient.Configuration().tracer == nil)
        withTracer(tracer) {
            #expect(RequestClient.Configuration().tracer is InMemoryTracer)
        }
    }

    /// The Tracing article's example, as printed there.
    @Test func theArticlesExampleRecordsTheAttemptThenTheRequest() async throws {
        try await TestServer.withTestServer(handler: { _ in .json("[]") }) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environment = try ServiceEnvironment(name: "test", baseURL: server.baseURL)
                let tracer = InMemoryTracer()
                var configuration = RequestClient.Configuration()
                configuration.tracer = tracer
                let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
                _ = try await client.get("vehicles")
                let names = tracer.finishedSpans.map(\.operationName)  // ["GET", "GET"]: the attempt, then the request
                #expect(names == ["GET", "GET"])
                #expect(tracer.finishedSpans.map(\.kind) == [.client, .internal])
            }
        }
    }

    /// The article's bootstrap line compiles; it is never run, since a process installs a tracer only once.
    static func articleBootstrap(_ tracer: some Tracer) {
        InstrumentationSystem.bootstrap(tracer)
    }

    @Test func cacheResultsInOneWord() {
        #expect(RequestTracing.cacheResult("hit; ttl=30") == "hit")
        #expect(RequestTracing.cacheResult("hit; ttl=-3; detail=stale-while-revalidate") == "hit")
        #expect(RequestTracing.cacheResult("fwd=stale; detail=stale-if-error") == "stale")
        #expect(RequestTracing.cacheResult("fwd=stale; fwd-status=304; stored") == "revalidated")
        #expect(RequestTracing.cacheResult("fwd=miss; stored") == "miss")
        #expect(RequestTracing.cacheResult("fwd=request; fwd-status=200") == "miss")
        #expect(RequestTracing.cacheResult("fwd=bypass") == "bypass")
        #expect(RequestTracing.cacheResult("fwd=method") == "bypass")
    }
}
