import Foundation
import HTTPTypes
import Testing

@testable import RequestKit

/// Keys, stored answers and their age arithmetic, and the bounded memory store: pure values, no requests.
struct CacheStoreTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func entry(
        _ path: String = "a",
        body: Int = 10,
        fields: HTTPFields = [.cacheControl: "max-age=60"],
        varying: [String: String] = [:],
        requestTime: Date = start,
        responseTime: Date = start
    ) -> CachedResponse {
        let url = URL(string: "https://api.example.com/" + path) ?? URL(filePath: "/")
        return CachedResponse(
            key: CacheKey(method: .get, url: url),
            varyingHeaderValues: varying,
            status: 200,
            headerFields: fields,
            body: Data(count: body),
            url: url,
            requestTime: requestTime,
            responseTime: responseTime
        )
    }

    // MARK: - Keys

    @Test(arguments: [
        ("HTTPS://API.Example.com:443/v1/x?b=2&a=1#top", "https://api.example.com/v1/x?b=2&a=1"),
        ("http://api.example.com:80", "http://api.example.com/"),
        ("http://api.example.com:8080/x", "http://api.example.com:8080/x"),
        ("https://api.example.com/a%20b?q=%41", "https://api.example.com/a%20b?q=%41"),
    ])
    func keysNormaliseSchemeHostAndDefaultPortAndKeepTheQueryAsSent(url: String, normalised: String) throws {
        let key = CacheKey(method: .get, url: try #require(URL(string: url)))
        #expect(key.url == normalised)
        #expect(key.description == "GET " + normalised)
    }

    @Test func keysAndEntriesRoundTripThroughCodable() throws {
        let entry = Self.entry(varying: ["accept-language": "de"])
        let decoded = try JSONDecoder().decode(CachedResponse.self, from: JSONEncoder().encode(entry))
        #expect(decoded == entry)
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWasAndWorksOutItsFreshnessAgain() {
        let original = Self.entry(fields: [.cacheControl: "max-age=60"])
        var changed = original
        changed.headerFields[.cacheControl] = "max-age=600"
        changed.responseTime = Self.start.addingTimeInterval(5)
        changed.body = Data(count: 3)
        #expect(original.freshnessLifetime == 60)
        #expect(original.headerFields[.cacheControl] == "max-age=60")
        #expect(original.responseTime == Self.start)
        #expect(original.body.count == 10)
        #expect(changed.freshnessLifetime == 600)
        // Sent at 0 and received at 5: the five seconds in transit count towards its age.
        #expect(changed.age(at: Self.start.addingTimeInterval(5)) == 5)
        #expect(changed.expiry == Self.start.addingTimeInterval(600))
        #expect(changed != original)
        var restored = changed
        restored.headerFields = original.headerFields
        restored.responseTime = original.responseTime
        restored.body = original.body
        #expect(restored == original)
        #expect(restored.hashValue == original.hashValue)
    }

    // MARK: - Age and freshness (RFC 9111 section 4.2)

    @Test func ageCountsTheAgeFieldTheTransitAndTheTimeSinceArrival() {
        // Sent at 0, arrived at 2, the server says 30 seconds old: corrected initial age 32.
        let entry = Self.entry(
            fields: [.cacheControl: "max-age=100", .age: "30"],
            requestTime: Self.start,
            responseTime: Self.start.addingTimeInterval(2)
        )
        #expect(entry.age(at: Self.start.addingTimeInterval(2)) == 32)
        #expect(entry.age(at: Self.start.addingTimeInterval(12)) == 42)
        #expect(entry.freshnessLifetime == 100)
        #expect(entry.isFresh(at: Self.start.addingTimeInterval(69)))
        #expect(!entry.isFresh(at: Self.start.addingTimeInterval(70)))
    }

    @Test func anOldDateMakesTheApparentAgeCount() {
        // The server's clock says the answer left 40 seconds before it arrived.
        let entry = Self.entry(fields: [.cacheControl: "max-age=100", .date: "Tue, 14 Nov 2023 22:12:40 GMT"])
        #expect(entry.age(at: Self.start) == 40)
    }

    @Test func heuristicFreshnessIsATenthOfTheTimeSinceLastModifiedAtMostADay() {
        let recent = Self.entry(fields: [
            .date: "Tue, 14 Nov 2023 22:13:20 GMT", .lastModified: "Tue, 14 Nov 2023 21:56:40 GMT",
        ])
        #expect(recent.freshnessLifetime == 100)
        let old = Self.entry(fields: [
            .date: "Tue, 14 Nov 2023 22:13:20 GMT", .lastModified: "Mon, 01 Jan 2001 00:00:00 GMT",
        ])
        #expect(old.freshnessLifetime == 86_400)
        #expect(Self.entry(fields: [:]).freshnessLifetime == 0)
    }

    @Test func expiryAddsTheLongerStaleWindow() {
        let entry = Self.entry(fields: [.cacheControl: "max-age=60, stale-while-revalidate=30, stale-if-error=300"])
        #expect(entry.expiry == Self.start.addingTimeInterval(360))
    }

    @Test func invalidDirectiveValuesCountAsStale() {
        #expect(Self.entry(fields: [.cacheControl: "max-age=soon"]).freshnessLifetime == 0)
        #expect(Self.entry(fields: [.cacheControl: "max-age=\"30\""]).freshnessLifetime == 30)
    }

    // MARK: - The memory store

    @Test func variantsLiveSideBySideAndAVariantIsReplacedByItsSuccessor() async throws {
        let store = MemoryCacheStore()
        let german = Self.entry(varying: ["accept-language": "de"])
        let english = Self.entry(varying: ["accept-language": "en"])
        try await store.store(german)
        try await store.store(english)
        var newer = german
        newer.body = Data(count: 3)
        try await store.store(newer)
        let variants = try await store.entries(for: german.key)
        #expect(variants.count == 2)
        #expect(Set(variants.map(\.body.count)) == [3, 10])
        #expect(store.entryCount == 2)
        try await store.remove(german.key)
        #expect(try await store.entries(for: german.key).isEmpty)
        #expect(store.entryCount == 0)
        #expect(store.byteCount == 0)
    }

    @Test func theLeastRecentlyUsedKeysGoFirstWhenTheBytesRunOut() async throws {
        let size = Self.entry(body: 1_000).byteCount
        let store = MemoryCacheStore(maximumBytes: size * 3, maximumBodySize: 1_000)
        for path in ["a", "b", "c"] { try await store.store(Self.entry(path, body: 1_000)) }
        _ = try await store.entries(for: Self.entry("a").key)
        try await store.store(Self.entry("d", body: 1_000))
        #expect(try await store.entries(for: Self.entry("b").key).isEmpty)
        for path in ["a", "c", "d"] { #expect(try await store.entries(for: Self.entry(path).key).count == 1) }
        #expect(store.byteCount <= store.maximumBytes)
    }

    @Test func theEntryCountIsBoundedToo() async throws {
        let store = MemoryCacheStore(maximumEntries: 2)
        for path in ["a", "b", "c"] { try await store.store(Self.entry(path)) }
        #expect(store.entryCount == 2)
        #expect(try await store.entries(for: Self.entry("a").key).isEmpty)
    }

    @Test func anEntryLargerThanTheWholeStoreIsNotKept() async throws {
        let store = MemoryCacheStore(maximumBytes: 500)
        try await store.store(Self.entry(body: 1_000))
        #expect(store.entryCount == 0)
    }

    @Test func removeExpiredKeepsWhatIsStillUsable() async throws {
        let store = MemoryCacheStore()
        try await store.store(Self.entry("short", fields: [.cacheControl: "max-age=10"]))
        try await store.store(Self.entry("long", fields: [.cacheControl: "max-age=10, stale-if-error=100"]))
        try await store.removeExpired(now: Self.start.addingTimeInterval(50))
        #expect(try await store.entries(for: Self.entry("short").key).isEmpty)
        #expect(try await store.entries(for: Self.entry("long").key).count == 1)
        try await store.removeAll()
        #expect(store.entryCount == 0)
    }

    @Test func theCacheRemovesExpiredEntriesByItsClock() async throws {
        let clock = CacheTestClock()
        let store = MemoryCacheStore()
        let cache = HTTPCache(store: store, now: clock.read)
        try await store.store(Self.entry(fields: [.cacheControl: "max-age=10"], responseTime: clock.now))
        try await cache.removeExpired()
        #expect(store.entryCount == 1)
        clock.advance(10)
        try await cache.removeExpired()
        #expect(store.entryCount == 0)
    }
}
