public import Foundation
import ModelKit
public import RequestKit
public import StoreKitLite
import StoreKitLiteSQLite
import Synchronization

/// RequestKit's HTTP cache kept in a StoreKitLite store: answers survive restarts.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// if let cacheStore = try? await StoreCacheStore.open(path: cachesFolder + "/http-cache.sqlite") {
///     configuration.cache = HTTPCache(store: cacheStore)
/// }
/// ```
///
/// The store is bounded by ``Limits``: in bytes (bodies plus header fields) and in entries. When a new answer takes
/// it past either bound, the answers used least recently are removed in the same step. Expired answers go with
/// ``removeExpired(now:)``.
///
/// **Writes.** Each ``store(_:)`` replaces the variant under the same key and varying values and is saved with
/// `SaveOption.saveAndPersist`: on disk before it returns. The time an answer was last used is kept in memory on a
/// hit and written with the next store, so a hit never writes.
///
/// **Reads.** Answers read from the file are also kept in memory, decoded, up to ``Limits/memoryBytes``: a repeated
/// hit within ``Limits/memoryLifetime`` of the read costs about what an in-memory cache's hit costs, and the file is
/// read again after that.
///
/// **Several processes.** Processes that open the same file share its answers: an answer stored by another process
/// is found by the next lookup that reads the file, and one it removed or replaced is no longer used once this
/// process's copy is older than ``Limits/memoryLifetime`` (a second by default; `.zero` reads the file every time).
/// Each process bounds the store by the answers it knows of (those present when it opened it, and those it stored
/// since); a process that opens the file later sees them all.
///
/// **Failures.** The cache is an optimisation: `HTTPCache` treats a failed read as a miss and a failed
/// write as not stored, so a request never fails because of its cache. Opening a file that is not a cache store (a
/// corrupt or foreign file, a newer schema) throws a `StoreError` and leaves the file as it is; the
/// client then goes without a cache (see ``open(path:limits:)``).
public final class StoreCacheStore: CacheStore {
    /// How large the store may grow.
    public struct Limits: Sendable, Hashable {
        /// The most bytes the stored answers take (bodies plus header fields).
        public var maximumBytes: Int
        /// The most answers kept.
        public var maximumEntries: Int
        /// The largest body stored; larger answers are passed on without being stored.
        public var maximumBodySize: Int

        /// The most bytes of answers also kept in memory, decoded, so that a repeated hit reads nothing; `0` reads
        /// the file on every lookup.
        public var memoryBytes: Int
        /// How long an answer kept in memory is used before the file is read again: the longest a removal or
        /// replacement by another process on the same file goes unseen here.
        public var memoryLifetime: Duration

        /// Limits; the defaults keep 10,000 answers in 64 MiB, none over 4 MiB, the last 8 MiB read also in
        /// memory for up to a second.
        public init(
            maximumBytes: Int = 64 << 20,
            maximumEntries: Int = 10_000,
            maximumBodySize: Int = 4 << 20,
            memoryBytes: Int = 8 << 20,
            memoryLifetime: Duration = .seconds(1)
        ) {
            self.maximumBytes = max(0, maximumBytes)
            self.maximumEntries = max(0, maximumEntries)
            self.maximumBodySize = max(0, min(maximumBodySize, maximumBytes))
            self.memoryBytes = max(0, memoryBytes)
            self.memoryLifetime = max(.zero, memoryLifetime)
        }
    }

    /// The records a cache store keeps; add them to a store model to keep the cache in a store of your own.
    public static let records: [any Record.Type] = [CacheEntryRecord.self, CacheBodyRecord.self]

    /// What the store knows of one answer without reading it.
    private struct IndexEntry {
        var key: String
        var variant: String
        var bytes: Int
        var expiry: Date
        var lastUsed: Date
    }

    private struct Index {
        var entries: [UUID: IndexEntry] = [:]
        /// The answers under each key (its variants).
        var byKey: [String: Set<UUID>] = [:]
        var bytes = 0
        /// Answers used since their `lastUsed` was last written.
        var touched: Set<UUID> = []

        func ids(for key: String) -> Set<UUID> {
            byKey[key] ?? []
        }

        mutating func insert(_ id: UUID, _ entry: IndexEntry) {
            remove(id)
            entries[id] = entry
            byKey[entry.key, default: []].insert(id)
            bytes += entry.bytes
        }

        mutating func remove(_ id: UUID) {
            guard let old = entries.removeValue(forKey: id) else { return }
            bytes -= old.bytes
            touched.remove(id)
            byKey[old.key]?.remove(id)
            if byKey[old.key]?.isEmpty == true { byKey[old.key] = nil }
        }

        /// What storing an answer of `bytes` under `key` and `variant` takes: the variant it replaces, and the least
        /// recently used answers to remove so that the rest and the new one fit `limits`. Usually one answer has to
        /// go, found in one pass; the whole index is sorted only when many have to.
        func plan(
            key: String,
            variant: String,
            bytes newBytes: Int,
            limits: Limits
        ) -> (replaced: [UUID], victims: [UUID]) {
            let replaced = Array(ids(for: key).filter { entries[$0]?.variant == variant })
            var excessBytes = bytes + newBytes - limits.maximumBytes
            var excessEntries = entries.count + 1 - limits.maximumEntries
            for id in replaced {
                excessBytes -= entries[id]?.bytes ?? 0
                excessEntries -= 1
            }
            guard excessBytes > 0 || excessEntries > 0 else { return (replaced, []) }
            var excluded = Set(replaced)
            var victims: [UUID] = []
            func take(_ id: UUID, _ entry: IndexEntry) {
                victims.append(id)
                excluded.insert(id)
                excessBytes -= entry.bytes
                excessEntries -= 1
            }
            while excessBytes > 0 || excessEntries > 0, victims.count < 8 {
                guard
                    let oldest = entries.lazy.filter({ !excluded.contains($0.key) }).min(by: {
                        $0.value.lastUsed < $1.value.lastUsed
                    })
                else { return (replaced, victims) }
                take(oldest.key, oldest.value)
            }
            if excessBytes > 0 || excessEntries > 0 {
                for (id, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed })
                where !excluded.contains(id) {
                    guard excessBytes > 0 || excessEntries > 0 else { break }
                    take(id, entry)
                }
            }
            return (replaced, victims)
        }
    }

    /// The service the answers are kept through.
    public let service: PersistenceService
    /// The store's bounds.
    public let limits: Limits
    public var maximumBodySize: Int { limits.maximumBodySize }

    private let index: Mutex<Index>
    /// Answers read or stored lately, decoded, with when they were loaded (see ``Limits/memoryLifetime``).
    private let memory: MemoryCacheStore
    private let loaded = Mutex<[CacheKey: ContinuousClock.Instant]>([:])
    private let clock: @Sendable () -> Date
    /// One writer at a time, so the index and the file agree on what a store or an eviction did.
    private let writes = WriteLane()

    /// A cache store over `service`, whose model must include ``records``; reads the index of what is stored.
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public init(
        service: PersistenceService,
        limits: Limits = Limits(),
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws(StoreError) {
        self.service = service
        self.limits = limits
        self.clock = clock
        self.memory = MemoryCacheStore(
            maximumBytes: limits.memoryBytes,
            maximumEntries: limits.maximumEntries,
            maximumBodySize: min(limits.maximumBodySize, limits.memoryBytes)
        )
        let known = try await service.fetch(Query<CacheEntryRecord>()) { record in
            (
                record.id.uuid,
                IndexEntry(
                    key: record.key,
                    variant: record.variant,
                    bytes: record.byteCount,
                    expiry: record.expiry,
                    lastUsed: record.lastUsed
                )
            )
        }
        var index = Index()
        for (id, entry) in known { index.insert(id, entry) }
        self.index = Mutex(index)
    }

    /// Opens (or creates) a cache store in the SQLite file at `path`.
    ///
    /// - Throws: `StoreError` when the file cannot be a cache store: `StoreError.Code.notADatabase`
    ///   for a corrupt or foreign file, `StoreError.Code.newerSchema`,
    ///   `StoreError.Code.cannotOpen`. The file is left as it was. A client can go on without a
    ///   cache: `let cacheStore = try? await StoreCacheStore.open(path: path)`.
    public static func open(path: String, limits: Limits = Limits()) async throws(StoreError) -> StoreCacheStore {
        // Another process may write the same entries (when each was last used): our columns win, and an entry it
        // removed stays removed.
        let service = try await PersistenceService.open(
            model: StoreModel(records: records),
            backend: SQLiteBackend(path: path, durability: .normal),
            mergePolicy: .oursWins
        )
        return try await StoreCacheStore(service: service, limits: limits)
    }

    /// The number of answers this store knows of.
    public var entryCount: Int { index.withLock { $0.entries.count } }
    /// The bytes those answers take.
    public var byteCount: Int { index.withLock { $0.bytes } }

    // MARK: - CacheStore

    public func entries(for key: CacheKey) async throws -> [CachedResponse] {
        if let answers = try await recentlyLoaded(key) { return answers }
        let answers = try await read(key)
        if limits.memoryBytes > 0 {
            // Memory takes exactly what the file holds now.
            try await memory.remove(key)
            for answer in answers { try await memory.store(answer) }
            remember(key, loaded: !answers.isEmpty)
        }
        return answers
    }

    /// Notes when `key` was read from the file; times past the lifetime are dropped once there are many.
    private func remember(_ key: CacheKey, loaded isLoaded: Bool) {
        let lifetime = limits.memoryLifetime
        let bound = max(64, limits.maximumEntries)
        loaded.withLock { loaded in
            loaded[key] = isLoaded ? .now : nil
            if loaded.count > bound {
                let now = ContinuousClock.now
                loaded = loaded.filter { $0.value.duration(to: now) < lifetime }
            }
        }
    }

    /// The answers kept in memory for `key` while they are younger than ``Limits/memoryLifetime``.
    private func recentlyLoaded(_ key: CacheKey) async throws -> [CachedResponse]? {
        guard limits.memoryBytes > 0,
            let since = loaded.withLock({ $0[key] }), since.duration(to: .now) < limits.memoryLifetime
        else { return nil }
        let answers = try await memory.entries(for: key)
        guard !answers.isEmpty else { return nil }
        let now = clock()
        index.withLock { index in
            for id in index.ids(for: key.description) {
                index.entries[id]?.lastUsed = now
                index.touched.insert(id)
            }
        }
        return answers
    }

    /// The answers stored under `key`, read from the file.
    private func read(_ key: CacheKey) async throws -> [CachedResponse] {
        let records = try await service.fetch(Query<CacheEntryRecord>(\.key == key.description))
        guard !records.isEmpty else { return [] }
        let bodies = try await service.fetch(ids: records.map { CacheBodyRecord.ID(uuid: $0.id.uuid) })
        var bodyByID: [UUID: Data] = [:]
        for body in bodies { bodyByID[body.id.uuid] = body.body }
        let now = clock()
        var answers: [CachedResponse] = []
        answers.reserveCapacity(records.count)
        for record in records {
            // An entry whose body another process removed meanwhile is not an answer.
            guard let body = bodyByID[record.id.uuid],
                var answer = try? Self.decoder.decode(
                    CachedResponse.self,
                    from: record.answer
                )
            else { continue }
            answer.body = body
            answers.append(answer)
        }
        index.withLock { index in
            for record in records where index.entries[record.id.uuid] != nil {
                index.entries[record.id.uuid]?.lastUsed = now
                index.touched.insert(record.id.uuid)
            }
        }
        return answers
    }

    public func store(_ entry: CachedResponse) async throws {
        guard entry.body.count <= limits.maximumBodySize, entry.byteCount <= limits.maximumBytes,
            limits.maximumEntries > 0
        else { return }
        var metadata = entry
        metadata.body = Data()
        let answer = try Self.encoder.encode(metadata)
        let key = entry.key.description
        let variant = Self.variant(of: entry.varyingHeaderValues)
        let now = clock()
        let id = UUID()
        if limits.memoryBytes > 0 {
            // The answer is used from memory at once: lookups that come while the write waits for the file (a
            // burst of identical requests, say) find it there instead of each missing and storing it again.
            try await memory.store(entry)
            remember(entry.key, loaded: true)
        }
        try await writes.run { () async throws -> Void in
            // The new answer, the variant it replaces, the recency of answers used since the last write, and
            // whatever has to go to make room: one transaction.
            let (replaced, victims, recency) = index.withLock { index in
                let (replaced, victims) = index.plan(
                    key: key,
                    variant: variant,
                    bytes: entry.byteCount,
                    limits: limits
                )
                let recency = index.touched.subtracting(replaced).subtracting(victims).compactMap { uuid in
                    index.entries[uuid].map { (uuid, $0.lastUsed) }
                }
                return (replaced, victims, recency)
            }
            let touched = recency.map(\.0)
            let stored = IndexEntry(
                key: key,
                variant: variant,
                bytes: entry.byteCount,
                expiry: entry.expiry,
                lastUsed: now
            )

            let batch = service.makeChild()
            // The same variant may have been stored by another process: it goes too, body and all.
            let storedElsewhere = try await batch.fetch(
                Query<CacheEntryRecord>(\.key == key && \.variant == variant)
            ) { $0.id.uuid }
            let gone = Array(Set(replaced + storedElsewhere + victims))
            if !gone.isEmpty {
                _ = try await batch.delete(ids: gone.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
                _ = try await batch.delete(ids: gone.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
            }
            if !recency.isEmpty {
                let lastUsed = Dictionary(recency, uniquingKeysWith: { first, _ in first })
                _ = try await batch.update(ids: recency.map { CacheEntryRecord.ID(uuid: $0.0) }) { records in
                    for index in records.indices {
                        if let date = lastUsed[records[index].id.uuid] { records[index].lastUsed = date }
                    }
                    return .dontSave
                }
            }
            var record = CacheEntryRecord(id: CacheEntryRecord.ID(uuid: id))
            record.key = key
            record.variant = variant
            record.expiry = entry.expiry
            record.lastUsed = now
            record.byteCount = entry.byteCount
            record.answer = answer
            var body = CacheBodyRecord(id: CacheBodyRecord.ID(uuid: id))
            body.body = entry.body
            try await batch.insert([record], options: .dontSave)
            try await batch.insert([body], options: .dontSave)
            try await batch.saveAll(.saveAndPersist)

            let evictedKeys = index.withLock { index in
                let evictedKeys = Set(victims.compactMap { index.entries[$0]?.key })
                for old in gone { index.remove(old) }
                index.insert(id, stored)
                index.touched.subtract(touched)
                return evictedKeys
            }
            // Memory follows the file: evicted keys are read again from it.
            for evicted in evictedKeys { await forget(evicted) }
        }
    }

    /// Drops what memory holds for the key whose text is `key`.
    private func forget(_ key: String) async {
        let keys = loaded.withLock { loaded in
            let matching = loaded.keys.filter { $0.description == key }
            for match in matching { loaded[match] = nil }
            return matching
        }
        for match in keys { try? await memory.remove(match) }
    }

    public func remove(_ key: CacheKey) async throws {
        let text = key.description
        try await writes.run { () async throws -> Void in
            loaded.withLock { $0[key] = nil }
            try await memory.remove(key)
            let ids = index.withLock { index in Array(index.ids(for: text)) }
            let batch = service.makeChild()
            let doomed = try await batch.fetch(Query<CacheEntryRecord>(\.key == text)) { $0.id.uuid }
            let all = Array(Set(ids + doomed))
            if !all.isEmpty {
                _ = try await batch.delete(ids: all.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
                _ = try await batch.delete(ids: all.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
                try await batch.saveAll(.saveAndPersist)
            }
            index.withLock { index in for id in all { index.remove(id) } }
        }
    }

    public func removeExpired(now: Date) async throws {
        try await writes.run { () async throws -> Void in
            let batch = service.makeChild()
            let expired = try await batch.fetch(Query<CacheEntryRecord>(\.expiry <= now)) { $0.id.uuid }
            guard !expired.isEmpty else { return }
            _ = try await batch.delete(ids: expired.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
            _ = try await batch.delete(ids: expired.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
            try await batch.saveAll(.saveAndPersist)
            index.withLock { index in for id in expired { index.remove(id) } }
            try await memory.removeExpired(now: now)
        }
    }

    public func removeAll() async throws {
        try await writes.run { () async throws -> Void in
            let batch = service.makeChild()
            _ = try await batch.delete(Query<CacheEntryRecord>(), options: .dontSave)
            _ = try await batch.delete(Query<CacheBodyRecord>(), options: .dontSave)
            try await batch.saveAll(.saveAndPersist)
            index.withLock { $0 = Index() }
            loaded.withLock { $0 = [:] }
            try await memory.removeAll()
        }
    }

    // MARK: - Encoding

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// The varying values as one canonical text: sorted `name=value` lines.
    static func variant(of values: [String: String]) -> String {
        values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }
}

/// Runs one body at a time, in order of arrival.
private final class WriteLane: Sendable {
    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func run<T>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if resume { continuation.resume() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
