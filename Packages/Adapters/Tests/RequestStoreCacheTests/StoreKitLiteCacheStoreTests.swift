import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import StoreKitLite
import StoreKitLiteSQLite
import Synchronization
import Testing

@testable import RequestStoreCache

/// A folder of its own per test, removed afterwards.
struct CacheFolder: ~Copyable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-cache-\(UUID().uuidString)")
    var path: String { url.appendingPathComponent("http-cache.sqlite").path }

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A clock a test moves by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

@Suite("StoreKitLiteCacheStore: RequestKit's HTTP cache in a StoreKitLite file")
struct StoreKitLiteCacheStoreTests {
    static func answer(
        _ path: String,
        body: String = "body",
        maxAge: Int = 60,
        vary: [String: String] = [:],
        at time: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) throws -> CachedResponse {
        let url = try #require(URL(string: "http://127.0.0.1:9/\(path)"))
        var fields = HTTPFields()
        fields[.cacheControl] = "max-age=\(maxAge)"
        fields[.contentType] = "text/plain"
        return CachedResponse(
            key: CacheKey(method: .get, url: url),
            varyingHeaderValues: vary,
            status: 200,
            headerFields: fields,
            body: Data(body.utf8),
            url: url,
            requestTime: time,
            responseTime: time
        )
    }

    static func key(_ path: String) throws -> CacheKey {
        CacheKey(method: .get, url: try #require(URL(string: "http://127.0.0.1:9/\(path)")))
    }

    @Test("answers survive closing and opening the file again, bodies and header fields intact")
    func survivesRestart() async throws {
        let folder = try CacheFolder()
        let first = try await StoreKitLiteCacheStore.open(path: folder.path)
        let stored = try Self.answer("vehicles", body: String(repeating: "v", count: 100_000))
        try await first.store(stored)
        try await first.service.close()

        let second = try await StoreKitLiteCacheStore.open(path: folder.path)
        #expect(try await second.entryCount == 1)
        let found = try await second.entries(for: try Self.key("vehicles"))
        #expect(found == [stored])
        #expect(try await second.entries(for: try Self.key("other")).isEmpty)
    }

    @Test("variants under one key are kept apart; storing a variant again replaces it")
    func variants() async throws {
        let folder = try CacheFolder()
        let store = try await StoreKitLiteCacheStore.open(path: folder.path)
        try await store.store(try Self.answer("v", body: "de", vary: ["accept-language": "de"]))
        try await store.store(try Self.answer("v", body: "en", vary: ["accept-language": "en"]))
        try await store.store(try Self.answer("v", body: "de 2", vary: ["accept-language": "de"]))
        let found = try await store.entries(for: try Self.key("v"))
        #expect(Set(found.map { String(decoding: $0.body, as: UTF8.self) }) == ["de 2", "en"])
        #expect(try await store.entryCount == 2)
    }

    @Test("past the entry limit the least recently used answers go, and stay gone after a restart")
    func evictsLeastRecentlyUsed() async throws {
        let folder = try CacheFolder()
        let clock = TestClock()
        let limits = StoreKitLiteCacheStore.Limits(maximumEntries: 3)
        let service = try await PersistenceService.open(
            model: StoreModel(records: StoreKitLiteCacheStore.records),
            backend: SQLiteBackend(path: folder.path)
        )
        let store = try await StoreKitLiteCacheStore(service: service, limits: limits, clock: { clock.now })
        for path in ["a", "b", "c"] {
            try await store.store(try Self.answer(path))
            clock.advance(1)
        }
        // "a" is used after "b" and "c" were stored, so "b" is now the least recently used.
        #expect(try await store.entries(for: try Self.key("a")).count == 1)
        clock.advance(1)
        try await store.store(try Self.answer("d"))
        #expect(try await store.entryCount == 3)
        #expect(try await store.entries(for: try Self.key("b")).isEmpty)
        try await service.close()

        let reopened = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        #expect(try await reopened.entryCount == 3)
        for path in ["a", "c", "d"] {
            #expect(try await reopened.entries(for: try Self.key(path)).count == 1, "\(path)")
        }
    }

    @Test("a store right after opening is bounded like any other once the index of what is stored is read")
    func storeRightAfterOpening() async throws {
        let folder = try CacheFolder()
        let limits = StoreKitLiteCacheStore.Limits(maximumEntries: 3)
        let first = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        for path in ["a", "b", "c"] { try await first.store(try Self.answer(path)) }
        try await first.service.close()

        let reopened = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        #expect(try await reopened.entries(for: try Self.key("b")).count == 1, "a lookup needs no index")
        try await reopened.store(try Self.answer("d"))
        #expect(try await reopened.entryCount == 3)
        #expect(try await reopened.service.count(CacheEntryRecord.self) == 3)
    }

    @Test("stores and lookups while the index is read wait for nothing; then the least recently used make room")
    func storesWhileTheIndexIsRead() async throws {
        let folder = try CacheFolder()
        let clock = TestClock()
        let limits = StoreKitLiteCacheStore.Limits(maximumEntries: 100)
        let first = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        for index in 0..<100 {
            try await first.store(try Self.answer("e\(index)", at: clock.now))
        }
        try await first.service.close()

        let service = try await PersistenceService.open(
            model: StoreKitLiteCacheStore.model,
            backend: SQLiteBackend(path: folder.path)
        )
        let gate = Gate()
        let store = try await StoreKitLiteCacheStore(
            service: service,
            limits: limits,
            clock: { clock.now },
            beforeReadingIndex: { await gate.wait() }
        )
        // Everything below runs before the index is read: the gate holds it.
        clock.advance(1)
        #expect(try await store.entries(for: try Self.key("e0")).count == 1, "a lookup reads the file")
        clock.advance(1)
        try await store.store(try Self.answer("e10", body: "again"))
        for index in 0..<20 {
            clock.advance(1)
            try await store.store(try Self.answer("n\(index)"))
        }
        #expect(try await service.count(CacheEntryRecord.self) == 120, "nothing is evicted before the index is read")
        let again = try await store.entries(for: try Self.key("e10"))
        #expect(again.map { String(decoding: $0.body, as: UTF8.self) } == ["again"], "the variant read was replaced")

        gate.open()
        #expect(try await store.entryCount == 100)
        #expect(try await service.count(CacheEntryRecord.self) == 100)
        #expect(try await service.count(CacheBodyRecord.self) == 100)
        // The 20 used least recently went: e0 was used and e10 stored while the index was read, so they stay.
        var kept: [String] = []
        for index in 0..<100 where try await !store.entries(for: try Self.key("e\(index)")).isEmpty {
            kept.append("e\(index)")
        }
        #expect(kept == ["e0", "e10"] + (22..<100).map { "e\($0)" })
        for index in 0..<20 { #expect(try await store.entries(for: try Self.key("n\(index)")).count == 1) }
        try await service.close()
    }

    @Test("the byte budget evicts too, and an answer larger than the body limit is not stored")
    func byteBudget() async throws {
        let folder = try CacheFolder()
        let limits = StoreKitLiteCacheStore.Limits(maximumBytes: 10_000, maximumEntries: 100, maximumBodySize: 4_000)
        let store = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        for index in 0..<5 {
            try await store.store(try Self.answer("p\(index)", body: String(repeating: "x", count: 3_000)))
        }
        #expect(try await store.byteCount <= 10_000)
        #expect(try await store.entryCount < 5)
        #expect(try await store.entries(for: try Self.key("p4")).count == 1)
        try await store.store(try Self.answer("huge", body: String(repeating: "x", count: 5_000)))
        #expect(try await store.entries(for: try Self.key("huge")).isEmpty)
        #expect(store.maximumBodySize == 4_000)
    }

    @Test("a store that displaces more than a batch of answers evicts the rest after it returns, oldest first")
    func largeEvictionInBatches() async throws {
        let folder = try CacheFolder()
        let clock = TestClock()
        let count = 400
        let limits = StoreKitLiteCacheStore.Limits(
            maximumBytes: 500_000,
            maximumEntries: 10_000,
            maximumBodySize: 490_000
        )
        let service = try await PersistenceService.open(
            model: StoreKitLiteCacheStore.model,
            backend: SQLiteBackend(path: folder.path)
        )
        let store = try await StoreKitLiteCacheStore(service: service, limits: limits, clock: { clock.now })
        for index in 0..<count {
            try await store.store(try Self.answer("small\(index)", body: String(repeating: "s", count: 1_000)))
            clock.advance(1)
        }
        // Room for the large answer takes all but the newest few small ones: several batches, and more answers than
        // one list of eviction candidates holds.
        try await store.store(try Self.answer("large", body: String(repeating: "L", count: 490_000)))
        let bytes = try await store.byteCount
        let entries = try await store.entryCount
        #expect(bytes <= 500_000)
        #expect(entries < count / 2)
        // Once the counts are read, the file holds exactly what the index does: the evictions have ended.
        #expect(try await service.count(CacheEntryRecord.self) == entries)
        #expect(try await service.count(CacheBodyRecord.self) == entries)
        #expect(try await store.entries(for: try Self.key("large")).count == 1)
        #expect(try await store.entries(for: try Self.key("small0")).isEmpty, "the oldest went first")
        #expect(try await store.entries(for: try Self.key("small\(count - 1)")).count == 1, "the newest stayed")
        try await service.close()
        let reopened = try await StoreKitLiteCacheStore.open(path: folder.path, limits: limits)
        #expect(try await reopened.entryCount == entries)
    }

    @Test("hundreds of evictions follow least-recent use exactly, uses between them included")
    func evictionOrderOverManyStores() async throws {
        let folder = try CacheFolder()
        let clock = TestClock()
        let limits = StoreKitLiteCacheStore.Limits(maximumEntries: 300)
        let service = try await PersistenceService.open(
            model: StoreKitLiteCacheStore.model,
            backend: SQLiteBackend(path: folder.path)
        )
        let store = try await StoreKitLiteCacheStore(service: service, limits: limits, clock: { clock.now })
        for index in 0..<300 {
            try await store.store(try Self.answer("e\(index)"))
            clock.advance(1)
        }
        // Every tenth is used, oldest first, which makes them newer than the rest.
        for index in stride(from: 0, to: 300, by: 10) {
            #expect(try await store.entries(for: try Self.key("e\(index)")).count == 1)
            clock.advance(1)
        }
        for index in 0..<100 {
            try await store.store(try Self.answer("n\(index)"))
            clock.advance(1)
        }
        // e201 is among the oldest still stored; used now, it becomes the newest of them.
        #expect(try await store.entries(for: try Self.key("e201")).count == 1)
        clock.advance(1)
        for index in 100..<270 {
            try await store.store(try Self.answer("n\(index)"))
            clock.advance(1)
        }
        // 270 evictions: the 269 others never used, then the oldest used one, e0.
        var kept: [String] = []
        for index in 0..<300 where try await !store.entries(for: try Self.key("e\(index)")).isEmpty {
            kept.append("e\(index)")
        }
        let expected = ["e201"] + stride(from: 10, to: 300, by: 10).map { "e\($0)" }
        #expect(kept.sorted() == expected.sorted())
        #expect(try await store.entryCount == 300)
        try await service.close()
    }

    @Test("expired answers, one key, and everything can be removed")
    func removal() async throws {
        let folder = try CacheFolder()
        let store = try await StoreKitLiteCacheStore.open(path: folder.path)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.store(try Self.answer("short", maxAge: 10, at: start))
        try await store.store(try Self.answer("long", maxAge: 1_000, at: start))
        try await store.store(try Self.answer("other", maxAge: 1_000, at: start))
        try await store.removeExpired(now: start.addingTimeInterval(100))
        #expect(try await store.entries(for: try Self.key("short")).isEmpty)
        #expect(try await store.entryCount == 2)
        try await store.remove(try Self.key("long"))
        #expect(try await store.entries(for: try Self.key("long")).isEmpty)
        #expect(try await store.entryCount == 1)
        try await store.removeAll()
        #expect(try await store.entryCount == 0)
        #expect(try await store.byteCount == 0)
        #expect(try await store.entries(for: try Self.key("other")).isEmpty)
    }

    @Test("two stores on one file see each other's answers")
    func twoProcessesShareTheFile() async throws {
        let folder = try CacheFolder()
        let first = try await StoreKitLiteCacheStore.open(path: folder.path)
        let second = try await StoreKitLiteCacheStore.open(path: folder.path)
        try await first.store(try Self.answer("shared", body: "from the first"))
        let seen = try await second.entries(for: try Self.key("shared"))
        #expect(seen.map { String(decoding: $0.body, as: UTF8.self) } == ["from the first"])
        try await second.remove(try Self.key("shared"))
        #expect(try await first.entries(for: try Self.key("shared")).isEmpty)
    }

    @Test("two stores that touch and replace the same answers keep one answer per variant, with its body")
    func twoWritersOnOneVariant() async throws {
        let folder = try CacheFolder()
        let first = try await StoreKitLiteCacheStore.open(path: folder.path)
        let second = try await StoreKitLiteCacheStore.open(path: folder.path)
        try await first.store(try Self.answer("same", body: "one"))
        #expect(try await second.entries(for: try Self.key("same")).count == 1)
        #expect(try await first.entries(for: try Self.key("same")).count == 1)
        // Both now hold the entry's recency to write; both store the same variant again.
        try await second.store(try Self.answer("same", body: "two"))
        try await first.store(try Self.answer("same", body: "three"))
        let fresh = try await StoreKitLiteCacheStore.open(path: folder.path)
        let found = try await fresh.entries(for: try Self.key("same"))
        #expect(found.map { String(decoding: $0.body, as: UTF8.self) } == ["three"])
        #expect(try await fresh.entryCount == 1)
        #expect(try await fresh.service.count(CacheBodyRecord.self) == 1)
    }

    @Test("what this process remembers is used until another process replaces or removes it, and not after")
    func anotherProcessInvalidatesWhatIsRemembered() async throws {
        let folder = try CacheFolder()
        let remembering = try await StoreKitLiteCacheStore.open(path: folder.path)
        let other = try await StoreKitLiteCacheStore.open(path: folder.path)
        try await other.store(try Self.answer("k", body: "first"))
        try await other.store(try Self.answer("unrelated", body: "u"))
        func bodies(_ path: String) async throws -> [String] {
            try await remembering.entries(for: try Self.key(path)).map { String(decoding: $0.body, as: UTF8.self) }
        }
        #expect(try await bodies("k") == ["first"])
        #expect(try await bodies("k") == ["first"], "from memory: nothing was committed")

        // A commit that leaves the key alone: what is remembered still holds.
        try await other.store(try Self.answer("unrelated", body: "u 2"))
        #expect(try await bodies("k") == ["first"])

        try await other.store(try Self.answer("k", body: "second"))
        #expect(try await bodies("k") == ["second"], "replaced by the other process")
        try await other.remove(try Self.key("k"))
        #expect(try await bodies("k").isEmpty, "removed by the other process")

        try await other.store(try Self.answer("k", body: "third"))
        #expect(try await bodies("k") == ["third"])
        try await other.removeAll()
        #expect(try await bodies("k").isEmpty)
        #expect(try await bodies("unrelated").isEmpty)
    }

    @Test("an answer this process stores is used at once, and its own removal is seen at once")
    func ownWritesAreRemembered() async throws {
        let folder = try CacheFolder()
        let store = try await StoreKitLiteCacheStore.open(path: folder.path)
        let stored = try Self.answer("k", body: "mine")
        try await store.store(stored)
        #expect(try await store.entries(for: try Self.key("k")) == [stored])
        try await store.store(try Self.answer("k", body: "de", vary: ["accept-language": "de"]))
        #expect(try await store.entries(for: try Self.key("k")).count == 2)
        try await store.remove(try Self.key("k"))
        #expect(try await store.entries(for: try Self.key("k")).isEmpty)
    }

    @Test("a cache store over a child service sees the service's unsaved changes, and the store again after a rollback")
    func childServiceSeesItsPendingChanges() async throws {
        let folder = try CacheFolder()
        let root = try await PersistenceService.open(
            model: StoreKitLiteCacheStore.model,
            backend: SQLiteBackend(path: folder.path)
        )
        let writer = try await StoreKitLiteCacheStore(service: root)
        try await writer.store(try Self.answer("k", body: "stored"))
        let child = root.makeChild()
        let cache = try await StoreKitLiteCacheStore(service: child)
        #expect(try await cache.entries(for: try Self.key("k")).count == 1)
        #expect(try await cache.entries(for: try Self.key("k")).count == 1)

        // The child deletes the entry without saving: its cache store no longer finds it; the store still has it.
        _ = try await child.delete(Query<CacheEntryRecord>(), options: .dontSave)
        #expect(try await cache.entries(for: try Self.key("k")).isEmpty)
        #expect(try await writer.entries(for: try Self.key("k")).count == 1)
        child.rollback()
        #expect(try await cache.entries(for: try Self.key("k")).count == 1)
        #expect(try await root.count(CacheEntryRecord.self) == 1, "nothing unsaved was written")
    }

    @Test("a file made before the key index opens with its answers and takes new ones")
    func fileWithoutTheKeyIndex() async throws {
        let folder = try CacheFolder()
        let stored = try Self.answer("old", body: "kept")
        // The model as it was: the two tables, created by one migration.
        let old = try await PersistenceService.open(
            model: StoreModel(records: StoreKitLiteCacheStore.records),
            backend: SQLiteBackend(path: folder.path)
        )
        try await StoreKitLiteCacheStore(service: old).store(stored)
        try await old.close()

        let reopened = try await StoreKitLiteCacheStore.open(path: folder.path)
        #expect(try await reopened.entries(for: try Self.key("old")) == [stored])
        try await reopened.store(try Self.answer("new", body: "added"))
        try await reopened.service.close()
        let again = try await StoreKitLiteCacheStore.open(path: folder.path)
        #expect(try await again.entryCount == 2)
    }

    @Test("through a client, repeated hits never reach the transport, and a removal by another process is seen")
    func repeatedHitsThroughAClient() async throws {
        let folder = try CacheFolder()
        let cacheStore = try await StoreKitLiteCacheStore.open(path: folder.path)
        let mock = MockTransport()
        mock.on(.get, "fleet") { _ in
            TestResponse(status: 200, headers: [("Cache-Control", "max-age=600")], body: .data(Data("the fleet".utf8)))
        }
        var configuration = RequestClient.Configuration()
        configuration.cache = HTTPCache(store: cacheStore)
        let client = RequestClient(
            environment: try ServiceEnvironment(name: "mock", baseURL: "http://127.0.0.1:9/"),
            transport: mock,
            configuration: configuration
        )
        for _ in 0..<4 { _ = try await client.get("fleet") }  // a miss, stored; then hits
        #expect(mock.requests.count == 1)
        // Another process removes the answer from the file: the next GET asks the server again.
        let other = try await StoreKitLiteCacheStore.open(path: folder.path)
        try await other.remove(try Self.key("fleet"))
        _ = try await client.get("fleet")
        #expect(mock.requests.count == 2)
    }

    @Test("a file that is not a cache store is a typed error, and its bytes are left as they were")
    func foreignFile() async throws {
        let folder = try CacheFolder()
        let bytes = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: folder.path))
        let error = await #expect(throws: StoreError.self) { try await StoreKitLiteCacheStore.open(path: folder.path) }
        #expect(error?.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path)) == bytes)
    }

    @Test("over loopback: a restarted client answers from the file without asking the server again")
    func restartedClientHitsTheFile() async throws {
        let folder = try CacheFolder()
        try await TestServer.withTestServer(handler: { _ in
            TestResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=600")],
                body: .data(Data(#"{"make":"Volvo"}"#.utf8))
            )
        }) { server in
            for _ in 0..<2 {
                let cacheStore = try await StoreKitLiteCacheStore.open(path: folder.path)
                try await AsyncHTTPClientTransport.withTransport { transport in
                    var configuration = RequestClient.Configuration()
                    configuration.cache = HTTPCache(store: cacheStore)
                    let client = RequestClient(
                        environment: try ServiceEnvironment(name: "local", baseURL: server.baseURL),
                        transport: transport,
                        configuration: configuration
                    )
                    let answer = try await client.get("vehicles/1")
                    #expect(answer.status.code == 200)
                    #expect(answer.value.text == nil && answer.value.json != nil)
                }
                try await cacheStore.service.close()
            }
            #expect(server.receivedRequests.count == 1)
        }
    }
}
