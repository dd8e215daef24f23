import Foundation
import RequestKit
import RequestStoreCache
import StoreKitLite
import Testing

/// Checks that the packages compose: a URL resolved by a RequestKit environment keys RequestStoreCache entries the
/// same way however the request spelled its path.
struct EnvironmentCacheKeyTests {
    @Test(arguments: ["vehicles?make=volvo&year=2020", "/vehicles?year=2020&make=volvo"])
    func pathsThatNameOneResourceShareACacheKey(path: String) throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:8080/v2")
        let url = try environment.url(for: path)
        let key = try #require(CacheKey(method: "GET", url: url))
        #expect(key.storageKey == "GET http://127.0.0.1:8080/v2/vehicles?make=volvo&year=2020")
    }

    @Test func onlyPersistingSavesWouldWriteACacheEntryFromAChildService() {
        // A cache adapter that writes through a child persistence service must use saveAndPersist to reach disk.
        let reaching = SaveOption.allCases.filter { $0.reachesStore(fromDepth: 1) }
        #expect(reaching == [.saveAndPersist])
    }
}
