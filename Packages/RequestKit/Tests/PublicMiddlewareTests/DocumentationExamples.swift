import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

// The Swift blocks of the Middleware, MigratingMiddleware and Caching articles and of the `Middleware` and
// `BackgroundWork` symbol docs, as they are printed there, compiled against the public API (no `@testable`).

// MARK: - Middleware.md

struct RequestTiming: Middleware {
    let record: @Sendable (Duration) -> Void

    func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await next(request)
        record(started.duration(to: clock.now))
        return response
    }
}

func middlewareOverview() -> RequestClient.Configuration {
    var configuration = RequestClient.Configuration()
    configuration.middleware = [RequestTiming { duration in print("head after \(duration)") }]
    return configuration
}

struct PassThrough: Middleware {
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        try await next(request)
    }
}

struct RelatedPrefetch: Middleware {
    func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
        let response = try await next(request)
        next.backgroundWork.run {
            var related = request
            related.url = request.url.appending(path: "related")
            _ = try? await next(related).body.collect(upTo: 1 << 20)
        }
        return response
    }
}

func testingAStepOnItsOwn() async throws -> Int {
    let step = PassThrough()
    let request = ClientRequest(method: .get, url: URL(string: "https://api.example.com/vehicles")!)
    let response = try await step.intercept(
        request,
        next: MiddlewareNext { sent in
            ClientResponse(status: .ok, url: sent.url)
        }
    )
    print(response.status.code)
    return response.status.code
}

// MARK: - MigratingMiddleware.md

struct APIKey: Middleware {
    let key: String

    func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
        var keyed = request
        keyed.headerFields[HTTPField.Name("X-API-Key")!] = key
        return try await next(keyed)
    }
}

func migratedTest(_ request: ClientRequest) async throws -> ClientResponse {
    let response = try await APIKey(key: "k-1").intercept(
        request,
        next: MiddlewareNext { sent in
            ClientResponse(status: .ok, url: sent.url)
        }
    )
    return response
}

// MARK: - Caching.md

func cachingShutdown(
    environment: ServiceEnvironment,
    transport: AsyncHTTPClientTransport,
    configuration: RequestClient.Configuration
) async throws {
    let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
    // … requests …
    await client.shutdown()
    try await transport.shutdown()
}

// MARK: - Symbol docs

struct RequestTagging: Middleware {
    func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
        var tagged = request
        tagged.headerFields[HTTPField.Name("X-Client")!] = "fleet"
        return try await next(tagged)
    }
}

struct Prefetch: Middleware {
    func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
        let response = try await next(request)
        next.backgroundWork.run {
            var related = request
            related.url = request.url.appending(path: "related")
            _ = try? await next(related).body.collect(upTo: 1 << 20)
        }
        return response
    }
}

struct DocumentationExampleTests {
    @Test func theStepTestedOnItsOwnPrintsTheStatus() async throws {
        #expect(try await testingAStepOnItsOwn() == 200)
    }

    @Test func theMigratedStepSendsItsKey() async throws {
        let request = ClientRequest(method: .get, url: try #require(URL(string: "https://api.example.com/v")))
        let seen = try await APIKey(key: "k-1").intercept(
            request,
            next: MiddlewareNext { sent in
                ClientResponse(status: .ok, headerFields: sent.headerFields, url: sent.url)
            }
        )
        #expect(seen.headerFields[HTTPField.Name("X-API-Key")!] == "k-1")
    }

    @Test func thePrefetchRunsInTheClientsBackgroundWorkThroughTheRestOfTheChain() async throws {
        let mock = MockTransport()
        mock.on(.get, "vehicles") { _ in .text("vehicles") }
        mock.on(.get, "vehicles/related") { _ in .text("related") }
        var configuration = RequestClient.Configuration()
        configuration.middleware = [RelatedPrefetch()]
        let environment = try ServiceEnvironment(name: "mock", baseURL: "https://api.example.com/")
        let client = RequestClient(environment: environment, transport: mock, configuration: configuration)
        _ = try await client.get("vehicles")
        await client.backgroundWork.waitUntilIdle()
        #expect(mock.requests.map(\.url.path) == ["/vehicles", "/vehicles/related"])
    }
}
