import Foundation
import HTTPTypes
import RequestKit
import RequestStoreCache
import StoreKitLite
import StoreKitLiteTesting
import Testing

/// The packages compose: paths that a RequestKit environment resolves to one resource share one cache entry in a
/// StoreKitLite-backed cache store.
struct EnvironmentCacheKeyTests {
    @Test(arguments: ["vehicles?make=volvo", "/vehicles?make=volvo", "./vehicles?make=volvo"])
    func pathsThatNameOneResourceShareACacheEntry(path: String) async throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:8080/v2/")
        let url = try environment.url(for: path)
        let key = CacheKey(method: .get, url: url)
        #expect(key.description == "GET http://127.0.0.1:8080/v2/vehicles?make=volvo")

        let service = try await PersistenceService.open(
            model: StoreKitLiteCacheStore.model,
            backend: InMemoryBackend()
        )
        let store = try await StoreKitLiteCacheStore(service: service)
        let canonical = try environment.url(for: "vehicles?make=volvo")
        try await store.store(
            CachedResponse(
                key: CacheKey(method: .get, url: canonical),
                status: 200,
                headerFields: [:],
                body: Data("[]".utf8),
                url: canonical,
                requestTime: Date(),
                responseTime: Date()
            )
        )
        #expect(try await store.entries(for: key).count == 1)
    }
}
