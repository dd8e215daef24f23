import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import RequestStoreCache
import StoreKitLite
import StoreKitLiteSQLite
import Synchronization
import Testing

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

@Suite("StoreCacheStore: RequestKit's HTTP cache in a StoreKitLite file")
struct StoreCacheStoreTests {
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
        let first = try await StoreCacheStore.open(path: folder.path)
        let stored = try Self.answer("vehicles", body: String(repeating: "v", count: 100_000))
        try await first.store(stored)
        try await first.service.close()

        let second = try await StoreCacheStore.open(path: folder.path)
        #expect(second.entryCount == 1)
        let found = try await second.entries(for: try Self.key("vehicles"))
        #expect(found == [stored])
        #expect(try await second.entries(for: try Self.key("other")).isEmpty)
    }

    @Test("variants under one key are kept apart; storing a variant again replaces it")
    func variants() async throws {
        let folder = try CacheFolder()
        let store = try await StoreCacheStore.open(path: folder.path)
        try await store.store(try Self.answer("v", body: "de", vary: ["accept-language": "de"]))
        try await store.store(try Self.answer("v", body: "en", vary: ["accept-language": "en"]))
        try await store.store(try Self.answer("v", body: "de 2", vary: ["accept-language": "de"]))
        let found = try await store.entries(for: try Self.key("v"))
        #expect(Set(found.map { String(decoding: $0.body, as: UTF8.self) }) == ["de 2", "en"])
        #expect(store.entryCount == 2)
    }

    @Test("past the entry limit the least recently used answers go, and stay gone after a restart")
    func evictsLeastRecentlyUsed() async throws {
        let folder = try CacheFolder()
        let clock = TestClock()
        let limits = StoreCacheStore.Limits(maximumEntries: 3)
        let service = try await PersistenceService.open(
            model: StoreModel(records: StoreCacheStore.records),
            backend: SQLiteBackend(path: folder.path)
        )
        let store = try await StoreCacheStore(service: service, limits: limits, clock: { clock.now })
        for path in ["a", "b", "c"] {
            try await store.store(try Self.answer(path))
            clock.advance(1)
        }
        // "a" is used after "b" and "c" were stored, so "b" is now the least recently used.
        #expect(try await store.entries(for: try Self.key("a")).count == 1)
        clock.advance(1)
        try await store.store(try Self.answer("d"))
        #expect(store.entryCount == 3)
        #expect(try await store.entries(for: try Self.key("b")).isEmpty)
        try await service.close()

        let reopened = try await StoreCacheStore.open(path: folder.path, limits: limits)
        #expect(reopened.entryCount == 3)
        for path in ["a", "c", "d"] {
            #expect(try await reopened.entries(for: try Self.key(path)).count == 1, "\(path)")
        }
    }

    @Test("the byte budget evicts too, and an answer larger than the body limit is not stored")
    func byteBudget() async throws {
        let folder = try CacheFolder()
        let limits = StoreCacheStore.Limits(maximumBytes: 10_000, maximumEntries: 100, maximumBodySize: 4_000)
        let store = try await StoreCacheStore.open(path: folder.path, limits: limits)
        for index in 0..<5 {
            try await store.store(try Self.answer("p\(index)", body: String(repeating: "x", count: 3_000)))
        }
        #expect(store.byteCount <= 10_000)
        #expect(store.entryCount < 5)
        #expect(try await store.entries(for: try Self.key("p4")).count == 1)
        try await store.store(try Self.answer("huge", body: String(repeating: "x", count: 5_000)))
        #expect(try await store.entries(for: try Self.key("huge")).isEmpty)
        #expect(store.maximumBodySize == 4_000)
    }

    @Test("expired answers, one key, and everything can be removed")
    func removal() async throws {
        let folder = try CacheFolder()
        let store = try await StoreCacheStore.open(path: folder.path)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.store(try Self.answer("short", maxAge: 10, at: start))
        try await store.store(try Self.answer("long", maxAge: 1_000, at: start))
        try await store.store(try Self.answer("other", maxAge: 1_000, at: start))
        try await store.removeExpired(now: start.addingTimeInterval(100))
        #expect(try await store.entries(for: try Self.key("short")).isEmpty)
        #expect(store.entryCount == 2)
        try await store.remove(try Self.key("long"))
        #expect(try await store.entries(for: try Self.key("long")).isEmpty)
        #expect(store.entryCount == 1)
        try await store.removeAll()
        #expect(store.entryCount == 0)
        #expect(store.byteCount == 0)
        #expect(try await store.entries(for: try Self.key("other")).isEmpty)
    }

    @Test("two stores on one file see each other's answers")
    func twoProcessesShareTheFile() async throws {
        let folder = try CacheFolder()
        // No memory lifetime: every lookup of the first store reads the file.
        let first = try await StoreCacheStore.open(path: folder.path, limits: .init(memoryLifetime: .zero))
        let second = try await StoreCacheStore.open(path: folder.path)
        try await first.store(try Self.answer("shared", body: "from the first"))
        let seen = try await second.entries(for: try Self.key("shared"))
        #expect(seen.map { String(decoding: $0.body, as: UTF8.self) } == ["from the first"])
        try await second.remove(try Self.key("shared"))
        #expect(try await first.entries(for: try Self.key("shared")).isEmpty)
    }

    @Test("two stores that touch and replace the same answers keep one answer per variant, with its body")
    func twoWritersOnOneVariant() async throws {
        let folder = try CacheFolder()
        let first = try await StoreCacheStore.open(path: folder.path)
        let second = try await StoreCacheStore.open(path: folder.path)
        try await first.store(try Self.answer("same", body: "one"))
        #expect(try await second.entries(for: try Self.key("same")).count == 1)
        #expect(try await first.entries(for: try Self.key("same")).count == 1)
        // Both now hold the entry's recency to write; both store the same variant again.
        try await second.store(try Self.answer("same", body: "two"))
        try await first.store(try Self.answer("same", body: "three"))
        let fresh = try await StoreCacheStore.open(path: folder.path)
        let found = try await fresh.entries(for: try Self.key("same"))
        #expect(found.map { String(decoding: $0.body, as: UTF8.self) } == ["three"])
        #expect(fresh.entryCount == 1)
        #expect(try await fresh.service.count(CacheBodyRecord.self) == 1)
    }

    @Test("an answer read lately is used from memory for its lifetime; with no lifetime the file is read each time")
    func memoryLifetime() async throws {
        let folder = try CacheFolder()
        // A lifetime no slow machine outlasts within the test.
        let remembering = try await StoreCacheStore.open(
            path: folder.path,
            limits: .init(memoryLifetime: .seconds(600))
        )
        let everyTime = try await StoreCacheStore.open(path: folder.path, limits: .init(memoryLifetime: .zero))
        let other = try await StoreCacheStore.open(path: folder.path)
        try await other.store(try Self.answer("k", body: "first"))
        #expect(try await remembering.entries(for: try Self.key("k")).count == 1)
        #expect(try await everyTime.entries(for: try Self.key("k")).count == 1)
        // Another process removes the answer: the copy read a moment ago is still used, the file-only store sees
        // the removal at once.
        try await other.remove(try Self.key("k"))
        #expect(try await remembering.entries(for: try Self.key("k")).count == 1)
        #expect(try await everyTime.entries(for: try Self.key("k")).isEmpty)
        // What this process removes itself is gone from memory too.
        try await remembering.remove(try Self.key("k"))
        #expect(try await remembering.entries(for: try Self.key("k")).isEmpty)
    }

    @Test("through a client, repeated hits within the lifetime are answered from memory")
    func repeatedHitsThroughAClient() async throws {
        let folder = try CacheFolder()
        // A lifetime no slow machine outlasts within the test.
        let cacheStore = try await StoreCacheStore.open(path: folder.path, limits: .init(memoryLifetime: .seconds(600)))
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
        _ = try await client.get("fleet")  // a miss: stored in the file
        _ = try await client.get("fleet")  // read from the file, kept in memory
        // Another process removes the answer from the file: the copy in memory still answers.
        let other = try await StoreCacheStore.open(path: folder.path)
        try await other.remove(try Self.key("fleet"))
        for _ in 0..<3 { _ = try await client.get("fleet") }
        #expect(mock.requests.count == 1)
    }

    @Test("a file that is not a cache store is a typed error, and its bytes are left as they were")
    func foreignFile() async throws {
        let folder = try CacheFolder()
        let bytes = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: folder.path))
        let error = await #expect(throws: StoreError.self) { try await StoreCacheStore.open(path: folder.path) }
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
                let cacheStore = try await StoreCacheStore.open(path: folder.path)
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
