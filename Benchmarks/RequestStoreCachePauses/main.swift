import Foundation
import GRDBSQLite
import HTTPTypes
import RequestKit
import RequestStoreCache
import StoreKitLite
import Synchronization

// The longest single call of a persistent HTTP cache (Adapters' StoreKitLiteCacheStore) of 10,000 answers: filling it,
// storing past its entry bound so that every store evicts, looking answers up while that goes on, one store that
// evicts thousands of answers at once by bytes, and opening the full file again and storing into it at once; then, as
// a control, the same stores and lookups on the raw SQLite C API. It prints the longest call of each phase with its
// median; nothing here is a pass or fail:
//   cd Benchmarks && swift build -c release --scratch-path ../.build-bench --product RequestStoreCachePauses
//   ../.build-bench/release/RequestStoreCachePauses [entries]

let entries = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-pauses-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("http-cache.sqlite").path
let clock = ContinuousClock()
let body = Data(repeating: 0x61, count: 1024)
let start = Date()

/// An answer of 1 KiB under `/items/<number>`, fresh for an hour.
func answer(_ number: Int, body: Data = body) -> CachedResponse {
    let url = URL(string: "http://127.0.0.1/items/\(number)") ?? URL(filePath: "/")
    var fields = HTTPFields()
    fields[.contentType] = "application/octet-stream"
    fields[.cacheControl] = "max-age=3600"
    fields[.eTag] = "\"\(number)\""
    return CachedResponse(
        key: CacheKey(method: .get, url: url),
        status: 200,
        headerFields: fields,
        body: body,
        url: url,
        requestTime: start,
        responseTime: start
    )
}

func key(_ number: Int) -> CacheKey {
    CacheKey(method: .get, url: URL(string: "http://127.0.0.1/items/\(number)") ?? URL(filePath: "/"))
}

/// The times of calls, in microseconds.
struct Latencies {
    var samples: [Double] = []

    mutating func time(_ body: () async throws -> Void) async rethrows {
        let elapsed = try await clock.measure(body)
        let (seconds, attoseconds) = elapsed.components
        samples.append(Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
    }

    mutating func timeBlocking(_ body: () -> Void) {
        let (seconds, attoseconds) = clock.measure(body).components
        samples.append(Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
    }

    func report(_ name: String) {
        guard !samples.isEmpty else { return print("\(name): no calls") }
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
        let line = String(
            format: "%@: %d calls, p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.1f ms, %d over 10 ms",
            name,
            sorted.count,
            at(0.5),
            at(0.99),
            at(0.999),
            (sorted.last ?? 0) / 1000,
            sorted.count { $0 > 10_000 }
        )
        print(line)
    }
}

/// Looks up random answers until `done` says stop, timing each lookup.
func lookUp(_ store: StoreKitLiteCacheStore, until done: @escaping @Sendable () -> Bool) async throws -> Latencies {
    var latencies = Latencies()
    var generator = SystemRandomNumberGenerator()
    while !done() {
        let number = Int.random(in: 0..<(2 * entries), using: &generator)
        try await latencies.time { _ = try await store.entries(for: key(number)) }
    }
    return latencies
}

/// The control: the same work as storing past the entry bound, written by hand on the raw SQLite C API in the same
/// run, so that its longest calls show what this machine's scheduler and disk do to any SQLite writer. A table of
/// 10,000 answers of 1 KiB (metadata and body in two tables, as the cache keeps them) in WAL mode with
/// `synchronous = NORMAL` and SQLite's own checkpointing; each timed transaction inserts one answer and deletes the
/// oldest, while another task reads random answers by key on a connection of its own.
func rawSQLiteControl() async throws {
    let rawPath = folder.appendingPathComponent("raw.sqlite").path
    let open: @Sendable () -> OpaquePointer? = {
        var db: OpaquePointer?
        sqlite3_open_v2(rawPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_busy_timeout(db, 10_000)
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nil, nil, nil)
        return db
    }
    let writer = UncheckedHandle(open())
    sqlite3_exec(
        writer.db,
        """
        CREATE TABLE entries (number INTEGER PRIMARY KEY, key TEXT NOT NULL, answer BLOB NOT NULL);
        CREATE INDEX entries_key ON entries (key);
        CREATE TABLE bodies (number INTEGER PRIMARY KEY, body BLOB NOT NULL);
        """,
        nil,
        nil,
        nil
    )
    let answerJSON = [UInt8](repeating: 0x7B, count: 300)
    var insertEntry: OpaquePointer?
    var insertBody: OpaquePointer?
    var deleteEntry: OpaquePointer?
    var deleteBody: OpaquePointer?
    sqlite3_prepare_v2(writer.db, "INSERT INTO entries VALUES (?, ?, ?)", -1, &insertEntry, nil)
    sqlite3_prepare_v2(writer.db, "INSERT INTO bodies VALUES (?, ?)", -1, &insertBody, nil)
    sqlite3_prepare_v2(writer.db, "DELETE FROM entries WHERE number = ?", -1, &deleteEntry, nil)
    sqlite3_prepare_v2(writer.db, "DELETE FROM bodies WHERE number = ?", -1, &deleteBody, nil)
    func store(_ number: Int, evicting oldest: Int?) {
        sqlite3_exec(writer.db, "BEGIN IMMEDIATE", nil, nil, nil)
        if let oldest {
            for statement in [deleteEntry, deleteBody] {
                sqlite3_bind_int64(statement, 1, Int64(oldest))
                sqlite3_step(statement)
                sqlite3_reset(statement)
            }
        }
        sqlite3_bind_int64(insertEntry, 1, Int64(number))
        sqlite3_bind_text(insertEntry, 2, "GET http://127.0.0.1/items/\(number)", -1, transient)
        answerJSON.withUnsafeBytes { _ = sqlite3_bind_blob(insertEntry, 3, $0.baseAddress, Int32($0.count), transient) }
        sqlite3_step(insertEntry)
        sqlite3_reset(insertEntry)
        sqlite3_bind_int64(insertBody, 1, Int64(number))
        body.withUnsafeBytes { _ = sqlite3_bind_blob(insertBody, 2, $0.baseAddress, Int32($0.count), transient) }
        sqlite3_step(insertBody)
        sqlite3_reset(insertBody)
        sqlite3_exec(writer.db, "COMMIT", nil, nil, nil)
    }
    for number in 0..<entries { store(number, evicting: nil) }

    let done = Flag()
    let reads = Task.detached { () -> Latencies in
        let reader = UncheckedHandle(open())
        var select: OpaquePointer?
        sqlite3_prepare_v2(
            reader.db,
            "SELECT e.answer, b.body FROM entries e JOIN bodies b ON b.number = e.number WHERE e.key = ?",
            -1,
            &select,
            nil
        )
        var latencies = Latencies()
        var generator = SystemRandomNumberGenerator()
        while !done.isSet {
            let number = Int.random(in: 0..<(2 * entries), using: &generator)
            latencies.timeBlocking {
                sqlite3_bind_text(select, 1, "GET http://127.0.0.1/items/\(number)", -1, transient)
                while sqlite3_step(select) == SQLITE_ROW {
                    _ = Data(bytes: sqlite3_column_blob(select, 1), count: Int(sqlite3_column_bytes(select, 1)))
                }
                sqlite3_reset(select)
            }
        }
        sqlite3_finalize(select)
        sqlite3_close_v2(reader.db)
        return latencies
    }
    var stores = Latencies()
    for number in entries..<(2 * entries) {
        stores.timeBlocking { store(number, evicting: number - entries) }
    }
    done.set()
    stores.report("control, raw SQLite: insert one, delete the oldest")
    await reads.value.report("control, raw SQLite: read by key meanwhile")
    for statement in [insertEntry, insertBody, deleteEntry, deleteBody] { sqlite3_finalize(statement) }
    sqlite3_close_v2(writer.db)
}

/// SQLite's `SQLITE_TRANSIENT`: it copies what is bound.
///
/// `nonisolated(unsafe)` is safe: a constant (the C function-pointer value -1), never written after it is made.
nonisolated(unsafe) let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A connection handed to the task that uses it alone.
///
/// `@unchecked Sendable` is safe: each handle is used by one task at a time, opened with `SQLITE_OPEN_NOMUTEX`.
struct UncheckedHandle: @unchecked Sendable {
    let db: OpaquePointer?
    init(_ db: OpaquePointer?) { self.db = db }
}

/// Runs the phases off the main actor, so that no call hops between the main thread and the pool.
func measure() async throws {
    let limits = StoreKitLiteCacheStore.Limits(maximumEntries: entries)
    let store = try await StoreKitLiteCacheStore.open(path: path, limits: limits)

    // 1. Filling the store to its entry bound: no eviction yet.
    var filling = Latencies()
    for number in 0..<entries {
        try await filling.time { try await store.store(answer(number)) }
    }
    filling.report("store, filling to \(try await store.entryCount) answers")

    // 2. Storing as many again: every store evicts the least recently used answer, while another task looks answers up.
    let evicting = Flag()
    async let lookups = lookUp(store, until: { evicting.isSet })
    var evictingStores = Latencies()
    for number in entries..<(2 * entries) {
        try await evictingStores.time { try await store.store(answer(number)) }
    }
    evicting.set()
    evictingStores.report("store past the entry bound (each evicts one)")
    try await lookups.report("lookup meanwhile (hits and misses)")

    // 3. One answer large enough that thousands of small ones go to make room for it by bytes.
    let bytesBefore = try await store.byteCount
    try await store.service.close()
    let byBytes = StoreKitLiteCacheStore.Limits(
        maximumBytes: bytesBefore + 2 << 20,
        maximumEntries: entries,
        maximumBodySize: 4 << 20
    )
    let bounded = try await StoreKitLiteCacheStore.open(path: path, limits: byBytes)
    let bulk = Flag()
    async let bulkLookups = lookUp(bounded, until: { bulk.isSet })
    var bulkStore = Latencies()
    let countBefore = try await bounded.entryCount
    try await bulkStore.time {
        try await bounded.store(answer(3 * entries, body: Data(repeating: 0x62, count: 4 << 20)))
    }
    bulk.set()
    bulkStore.report("store of 4 MiB evicting \(try await countBefore + 1 - bounded.entryCount) answers by bytes")
    try await bulkLookups.report("lookup meanwhile")
    try await bounded.service.close()

    // 4. Opening the full file again; its index is read in the background, and neither lookups nor stores wait for
    // it. The first store and a burst of lookups start at once; `entryCount` is the one call that waits for the index.
    var opening = Latencies()
    var firstStores = Latencies()
    var lookupsWhileIndexing = Latencies()
    var indexing = Latencies()
    for round in 0..<5 {
        var reopened: StoreKitLiteCacheStore?
        try await opening.time { reopened = try await StoreKitLiteCacheStore.open(path: path, limits: limits) }
        guard let reopened else { continue }
        let opened = clock.now
        try await firstStores.time { try await reopened.store(answer(4 * entries + round)) }
        for number in 0..<20 {
            try await lookupsWhileIndexing.time { _ = try await reopened.entries(for: key(entries + number * 97)) }
        }
        _ = try await reopened.entryCount
        let (seconds, attoseconds) = (clock.now - opened).components
        indexing.samples.append(Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
        try await reopened.service.close()
    }
    opening.report("open a file of \(countBefore) answers")
    firstStores.report("first store after opening (does not wait for the index)")
    lookupsWhileIndexing.report("lookups right after it")
    indexing.report("until entryCount (which waits for the index) returns, from opening")
    let reopened = try await StoreKitLiteCacheStore.open(path: path, limits: limits)
    var firstLookups = Latencies()
    for number in stride(from: entries, to: 2 * entries, by: 10) {
        try await firstLookups.time { _ = try await reopened.entries(for: key(number)) }
    }
    firstLookups.report("lookup after opening (from the file)")
    try await reopened.service.close()
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

try await Task.detached { try await measure() }.value
try await Task.detached { try await rawSQLiteControl() }.value
