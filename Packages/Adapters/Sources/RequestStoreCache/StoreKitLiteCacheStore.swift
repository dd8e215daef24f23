import Dispatch
public import Foundation
import HTTPTypes
import ModelKit
public import RequestKit
public import StoreKitLite
import StoreKitLiteSQLite
import Synchronization

/// RequestKit's HTTP cache kept in a StoreKitLite store: answers survive restarts.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// if let cacheStore = try? await StoreKitLiteCacheStore.open(path: cachesFolder + "/http-cache.sqlite") {
///     configuration.cache = HTTPCache(store: cacheStore)
/// }
/// ```
///
/// The store is bounded by ``Limits``: in bytes (bodies plus header fields) and in entries. When a new answer takes
/// it past either bound, the answers used least recently are removed in the same transaction, up to
/// ``evictionBatchSize`` of them. When more must go (one large answer that displaces thousands of small ones), the
/// rest are removed after ``store(_:)`` returns, in transactions of at most that many answers each, so that neither
/// the store nor a write queued behind it waits for one long transaction. They are no longer counted from the moment
/// the store returns: ``entryCount`` and ``byteCount`` wait until they are gone. Expired answers go with
/// ``removeExpired(now:)``.
///
/// **Writes.** Each ``store(_:)`` replaces the variant under the same key and varying values and is saved with
/// `SaveOption.saveAndPersist`: on disk before it returns. The time an answer was last used is kept in memory on a
/// hit and written with the next store, so a hit never writes.
///
/// **Opening.** Opening reads nothing but the schema. The index of what is stored (each answer's key, size, expiry
/// and last use) is read in the background, and nothing but ``entryCount``, ``byteCount``, ``remove(_:)``,
/// ``removeExpired(now:)`` and ``removeAll()`` waits for it: lookups are answered from the file meanwhile, and stores
/// are written at once (replacing the variant the file holds). What has to go to make room for the answers stored
/// meanwhile is chosen when the index is read, least recently used first as always, and removed after it.
///
/// **Reads.** Answers read from the file, and answers stored, are also kept in memory, decoded, up to
/// ``Limits/memoryBytes``. Each lookup first asks the store whether anything was committed since they were read
/// (`PersistenceService.storeVersion()`, one `PRAGMA data_version` on SQLite); if nothing was, the answers in
/// memory are used as they are. After a commit, the IDs of the answers stored under the key are read and compared
/// with those in memory, and only answers that changed are read and decoded again.
///
/// **Several processes.** Processes that open the same file share its answers: an answer stored, replaced or
/// removed by another process is seen by the next lookup after that process's commit. Each process bounds the
/// store by the answers it knows of (those present when it opened it, and those it stored since); a process that
/// opens the file later sees them all.
///
/// **Unsaved changes.** A cache store over a child service reads what that service sees, its own unsaved records
/// included; while the service or an ancestor has unsaved changes, lookups read the store instead of using memory.
///
/// **Failures.** The cache is an optimisation: `HTTPCache` treats a failed read as a miss and a failed
/// write as not stored, so a request never fails because of its cache. Opening a file that is not a cache store (a
/// corrupt or foreign file, a newer schema) throws a `StoreError` and leaves the file as it is; the
/// client then goes without a cache (see ``open(path:limits:)``).
public final class StoreKitLiteCacheStore: CacheStore {
    /// How large the store may grow.
    public struct Limits: Sendable, Hashable {
        /// The most bytes the stored answers take (bodies plus header fields).
        public var maximumBytes: Int
        /// The most answers kept.
        public var maximumEntries: Int
        /// The largest body stored; larger answers are passed on without being stored.
        public var maximumBodySize: Int

        /// The most bytes of answers also kept in memory, decoded, so that a repeated hit reads nothing but the
        /// store's version; `0` reads the file on every lookup.
        public var memoryBytes: Int

        /// Limits; the defaults keep 10,000 answers in 64 MiB, none over 4 MiB, and the last 8 MiB used also in
        /// memory.
        public init(
            maximumBytes: Int = 64 << 20,
            maximumEntries: Int = 10_000,
            maximumBodySize: Int = 4 << 20,
            memoryBytes: Int = 8 << 20
        ) {
            self.maximumBytes = max(0, maximumBytes)
            self.maximumEntries = max(0, maximumEntries)
            self.maximumBodySize = max(0, min(maximumBodySize, maximumBytes))
            self.memoryBytes = max(0, memoryBytes)
        }
    }

    /// The records a cache store keeps; add them, with ``migrations``, to a store model to keep the cache in a store
    /// of your own.
    public static let records: [any Record.Type] = [CacheEntryRecord.self, CacheBodyRecord.self]

    /// The migrations that build the records' tables: creating them, then an index of the entries by key and
    /// variant, so that a lookup or a store reads the entries of one key instead of scanning them all, and one by
    /// expiry, so that ``removeExpired(now:)`` reads only the expired entries.
    public static let migrations: [Migration] = [
        Migration(
            "create http_cache_entries, http_cache_bodies",
            steps: [.createEntity(CacheEntryRecord.schema.entity), .createEntity(CacheBodyRecord.schema.entity)]
        ),
        Migration(
            "index http_cache_entries by key",
            steps: [
                .createIndex(name: "http_cache_entries_key", entity: "http_cache_entries", columns: ["key", "variant"])
            ]
        ),
        Migration(
            "index http_cache_entries by expiry",
            steps: [.createIndex(name: "http_cache_entries_expiry", entity: "http_cache_entries", columns: ["expiry"])]
        ),
    ]

    /// The model of a store that holds only the cache.
    public static var model: StoreModel { StoreModel(records: records, migrations: migrations) }

    /// The service the answers are kept through.
    public let service: PersistenceService
    /// The store's bounds.
    public let limits: Limits
    public var maximumBodySize: Int { limits.maximumBodySize }

    private let state: Mutex<State>
    /// Reads the index of what was stored when the store was made and merges it with what was done meanwhile.
    /// Started by `init`, so that opening a large cache does not wait for it: lookups and stores never do;
    /// ``entryCount``, ``byteCount`` and removals wait until it is read.
    private let indexLoad = Mutex<Task<Void, Never>?>(nil)
    private let clock: @Sendable () -> Date
    /// One writer at a time, so the index and the file agree on what a store or an eviction did.
    private let writes = WriteLane()
    /// Answers already taken out of the index that are still to be removed from the file, and the task removing
    /// them (`nil` when none is running).
    private let pendingEvictions = Mutex<(ids: [UUID], drain: Task<Void, Never>?)>(([], nil))

    /// The most answers one transaction evicts. A store that has to evict more removes this many with its answer and
    /// the rest in transactions of this size after it returns: each takes a few milliseconds, so a write waiting
    /// behind them waits for one, not for all.
    public static let evictionBatchSize = 64

    /// A cache store over `service`, whose model must include ``records`` (and should include ``migrations``).
    ///
    /// The index of what is stored (each answer's key, size, expiry and last use, never its answer or body) is read
    /// in the background: lookups and stores go on meanwhile, and ``entryCount`` and ``byteCount`` wait for it.
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public convenience init(
        service: PersistenceService,
        limits: Limits = Limits(),
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws(StoreError) {
        try await self.init(service: service, limits: limits, clock: clock, beforeReadingIndex: {})
    }

    /// A cache store whose index is read once `beforeReadingIndex` returns: tests hold it to store and look up while
    /// it is read.
    init(
        service: PersistenceService,
        limits: Limits,
        clock: @escaping @Sendable () -> Date,
        beforeReadingIndex: @escaping @Sendable () async -> Void
    ) async throws(StoreError) {
        try await service.waitUntilInitialized()
        self.service = service
        self.limits = limits
        self.clock = clock
        self.state = Mutex(State())
        let load = Task { [self] in
            await beforeReadingIndex()
            await readIndex()
        }
        indexLoad.withLock { $0 = load }
    }

    /// Reads the index of what `service` stores and makes it the index; answers that no longer fit the bounds (they
    /// were lowered, or stores came meanwhile) are evicted after it.
    private func readIndex() async {
        do {
            var read = try await Self.index(of: service)
            let excess = state.withLock { $0.merge(&read, limits: limits) }
            evictLater(excess)
        } catch {
            state.withLock { $0.load = .failed(error) }
        }
    }

    /// What `service` stores, as an index in order of last use.
    ///
    /// Read on a dispatch thread, not on one of the cooperative pool's threads (as many as the machine has cores):
    /// reading 10,000 entries takes tens of milliseconds, which would otherwise be taken from every other task.
    private static func index(of service: PersistenceService) async throws -> Index {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try readIndexAndWait(of: service) })
            }
        }
    }

    /// ``index(of:)``, on the calling thread.
    private static func readIndexAndWait(of service: PersistenceService) throws -> Index {
        let known = try service.fetchAndWait(Query<CacheEntryRecord>().sorted(by: \.lastUsed)) { record in
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
        var index = Index(minimumCapacity: known.count)
        for (id, entry) in known { index.insert(id, entry) }
        return index
    }

    /// Waits until the index of what was stored when the store was made is read and merged.
    ///
    /// - Throws: The error that reading it ended with.
    private func loadedIndex() async throws {
        if case .reading = state.withLock({ $0.load }) {
            await indexLoad.withLock { $0 }?.value
        }
        if case .failed(let error) = state.withLock({ $0.load }) { throw error }
    }

    /// Opens (or creates) a cache store in the SQLite file at `path`.
    ///
    /// The file is opened with `synchronous = NORMAL` (a commit is in the write-ahead log, not yet synced, when
    /// the store returns: a power cut may lose the last answers, never corrupt the file) and with
    /// `SQLiteBackend.Execution.callingThread`: the cache's reads and small commits (a store that evicts a few
    /// answers) run on the calling task's thread when a connection is free, instead of hopping to SQLite's queues and
    /// back: a store past the entry bound and a lookup read from the file take a fraction of the time they take on
    /// the default `.suspending` execution. To choose otherwise, open a `PersistenceService` of your own and use
    /// `init(service:limits:clock:)`.
    ///
    /// - Throws: `StoreError` when the file cannot be a cache store: `StoreError.Code.notADatabase`
    ///   for a corrupt or foreign file, `StoreError.Code.newerSchema`,
    ///   `StoreError.Code.cannotOpen`. The file is left as it was. A client can go on without a
    ///   cache: `let cacheStore = try? await StoreKitLiteCacheStore.open(path: path)`.
    public static func open(path: String, limits: Limits = Limits()) async throws(StoreError) -> StoreKitLiteCacheStore
    {
        // Another process may write the same entries (when each was last used): our columns win, and an entry it
        // removed stays removed.
        let service = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, execution: .callingThread, durability: .normal),
            mergePolicy: .oursWins
        )
        return try await StoreKitLiteCacheStore(service: service, limits: limits)
    }

    /// The number of answers this store knows of; waits until the index is read and evictions still under way
    /// have ended.
    public var entryCount: Int {
        get async throws {
            try await loadedIndex()
            await evictionsEnded()
            return state.withLock { $0.index.entries.count }
        }
    }

    /// The bytes those answers take; waits until the index is read and evictions still under way have ended.
    public var byteCount: Int {
        get async throws {
            try await loadedIndex()
            await evictionsEnded()
            return state.withLock { $0.index.bytes }
        }
    }

    /// Returns when the answers a store evicted after it returned are removed from the file.
    private func evictionsEnded() async {
        while let drain = pendingEvictions.withLock({ $0.drain }) {
            await drain.value
        }
    }

    /// Removes `ids` (already out of the index) from the file after the current write, in transactions of at most
    /// ``evictionBatchSize`` answers, each queued in the write lane like any write.
    private func evictLater(_ ids: [UUID]) {
        guard !ids.isEmpty else { return }
        pendingEvictions.withLock { pending in
            pending.ids.append(contentsOf: ids)
            guard pending.drain == nil else { return }
            pending.drain = Task { [self] in
                while true {
                    let batch = pendingEvictions.withLock { pending -> [UUID] in
                        let batch = Array(pending.ids.prefix(Self.evictionBatchSize))
                        pending.ids.removeFirst(batch.count)
                        if batch.isEmpty { pending.drain = nil }
                        return batch
                    }
                    if batch.isEmpty { return }
                    // A batch that fails (the file closed meanwhile, say) stays in the file: whoever opens it next
                    // counts those answers and evicts them as needed.
                    try? await writes.run { () async throws -> Void in
                        let child = service.makeChild()
                        _ = try await child.delete(ids: batch.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
                        _ = try await child.delete(ids: batch.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
                        try await child.saveAll(.saveAndPersist)
                    }
                }
            }
        }
    }

    // MARK: - CacheStore

    public nonisolated(nonsending) func entries(for key: CacheKey) async throws -> [CachedResponse] {
        guard limits.memoryBytes > 0 else { return try await read(key).answers.map(\.answer) }
        // Read before anything else: what is read after it is at least as new, so it may be remembered as of it.
        let version = try? service.storeVersion()
        let now = clock()
        switch state.withLock({ $0.recall(key, at: version, now: now) }) {
        case .answers(let answers, _):
            return answers
        case .check(let ids):
            // Something was committed since: the answers in memory still hold if the key's IDs are the same.
            if let version, Set(try await storedIDs(key)) == Set(ids),
                let answers = state.withLock({ $0.confirm(key, ids: ids, at: version, now: now) })
            {
                return answers
            }
        case .unknown:
            break
        }
        let (found, ids) = try await read(key)
        let answers = found.map(\.answer)
        if let version {
            let bound = limits.memoryBytes
            state.withLock {
                $0.memory.remember(
                    key,
                    answers: answers,
                    answerIDs: found.map(\.id),
                    ids: ids,
                    at: version,
                    bound: bound
                )
            }
        }
        return answers
    }

    /// The IDs of the answers stored under `key`.
    private func storedIDs(_ key: CacheKey) async throws -> [UUID] {
        try await service.fetch(Query<CacheEntryRecord>(\.key == key.description)) { $0.id.uuid }
    }

    /// The answers stored under `key`, read from the file, and the IDs of the entries found (an answer that cannot
    /// be decoded, or whose body another process removed meanwhile, is left out of the answers only).
    private func read(_ key: CacheKey) async throws -> (answers: [(id: UUID, answer: CachedResponse)], ids: [UUID]) {
        let records = try await service.fetch(Query<CacheEntryRecord>(\.key == key.description))
        guard !records.isEmpty else { return ([], []) }
        let ids = records.map(\.id.uuid)
        let bodies = try await service.fetch(ids: ids.map { CacheBodyRecord.ID(uuid: $0) })
        var bodyByID: [UUID: Data] = [:]
        for body in bodies { bodyByID[body.id.uuid] = body.body }
        let now = clock()
        var answers: [(id: UUID, answer: CachedResponse)] = []
        answers.reserveCapacity(records.count)
        for record in records {
            guard let body = bodyByID[record.id.uuid],
                var answer = try? Self.decoder.decode(
                    CachedResponse.self,
                    from: record.answer
                )
            else { continue }
            answer.body = body
            answers.append((record.id.uuid, answer))
        }
        state.withLock { $0.touch(ids, at: now) }
        return (answers, ids)
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
        let remembers = limits.memoryBytes > 0
        if remembers {
            // The answer is used from memory at once: lookups that come while the write waits for the file (a
            // burst of identical requests, say) find it there instead of each missing and storing it again.
            let bound = limits.memoryBytes
            state.withLock { $0.memory.beginWrite(entry, id: id, bound: bound) }
        }
        do {
            try await write(entry, id: id, key: key, variant: variant, answer: answer, now: now)
        } catch {
            if remembers { state.withLock { $0.memory.endWrite(entry.key, confirmedAt: nil, ids: nil) } }
            throw error
        }
        guard remembers else { return }
        // What memory holds for the key is checked against the file as of now, so that the next hit needs nothing
        // but the store's version: this write changed it.
        let version = try? service.storeVersion()
        let ids = try? await storedIDs(entry.key)
        state.withLock { $0.memory.endWrite(entry.key, confirmedAt: version, ids: ids) }
    }

    /// Writes `entry` under the ID `id`, with the variant it replaces and whatever has to go to make room.
    private func write(
        _ entry: CachedResponse,
        id: UUID,
        key: String,
        variant: String,
        answer: Data,
        now: Date
    ) async throws {
        try await writes.run { () async throws -> Void in
            // The new answer, the variant it replaces, the recency of answers used since the last write, and
            // whatever has to go to make room: one transaction. A store does not wait for the index of what was
            // stored before it opened: until that is read, the index holds what this store wrote since, the file is
            // asked for the variant replaced, and what goes to make room is chosen when the index is read.
            let (replaced, victims, victimKeys, recency) = try state.withLock {
                state throws -> ([UUID], [UUID], [String], [(UUID, Date)]) in
                if case .failed(let error) = state.load { throw error }
                let (replaced, victims) = state.index.plan(
                    key: key,
                    variant: variant,
                    bytes: entry.byteCount,
                    limits: limits
                )
                let recency = state.index.touched.subtracting(replaced).subtracting(victims).compactMap { uuid in
                    state.index.entries[uuid].map { (uuid, $0.lastUsed) }
                }
                return (replaced, victims, victims.compactMap { state.index.entries[$0]?.key }, recency)
            }
            // Memory follows the file: the keys of evicted answers are read again from it. Parsed here, not under
            // the lock, which a store evicting thousands of answers would otherwise hold for milliseconds.
            let evictedKeys = Set(victimKeys).compactMap(Self.key)
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
            // The least recently used go first; past one batch, the rest go after this store returns.
            let later = Array(victims.dropFirst(Self.evictionBatchSize))
            let gone = Array(Set(replaced + storedElsewhere + victims.prefix(Self.evictionBatchSize)))
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

            let excess = state.withLock { state in
                for key in evictedKeys { state.memory.forget(key) }
                state.removed(gone + later)
                state.index.insert(id, stored)
                state.index.touched.subtract(touched)
                // A store planned while the index was read, and merged with it before this, makes room now.
                return state.takeExcess(over: limits)
            }
            evictLater(later + excess)
        }
    }

    public func remove(_ key: CacheKey) async throws {
        let text = key.description
        try await writes.run { () async throws -> Void in
            try await loadedIndex()
            state.withLock { $0.memory.forget(key) }
            let ids = state.withLock { Array($0.index.ids(for: text)) }
            let batch = service.makeChild()
            let doomed = try await batch.fetch(Query<CacheEntryRecord>(\.key == text)) { $0.id.uuid }
            let all = Array(Set(ids + doomed))
            if !all.isEmpty {
                _ = try await batch.delete(ids: all.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
                _ = try await batch.delete(ids: all.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
                try await batch.saveAll(.saveAndPersist)
            }
            state.withLock { state in
                state.removed(all)
                state.memory.forget(key)
            }
        }
    }

    public func removeExpired(now: Date) async throws {
        try await writes.run { () async throws -> Void in
            try await loadedIndex()
            let batch = service.makeChild()
            let expired = try await batch.fetch(Query<CacheEntryRecord>(\.expiry <= now)) { $0.id.uuid }
            guard !expired.isEmpty else { return }
            _ = try await batch.delete(ids: expired.map { CacheEntryRecord.ID(uuid: $0) }, options: .dontSave)
            _ = try await batch.delete(ids: expired.map { CacheBodyRecord.ID(uuid: $0) }, options: .dontSave)
            try await batch.saveAll(.saveAndPersist)
            state.withLock { state in
                state.removed(expired)
                state.memory.forgetAll()
            }
        }
    }

    public func removeAll() async throws {
        try await writes.run { () async throws -> Void in
            pendingEvictions.withLock { $0.ids.removeAll() }
            let batch = service.makeChild()
            _ = try await batch.delete(Query<CacheEntryRecord>(), options: .dontSave)
            _ = try await batch.delete(Query<CacheBodyRecord>(), options: .dontSave)
            try await loadedIndex()
            try await batch.saveAll(.saveAndPersist)
            state.withLock { state in
                state.index = Index()
                state.memory.forgetAll()
            }
        }
    }

    /// The key whose text (``CacheKey/description``) is `text`.
    static func key(_ text: String) -> CacheKey? {
        guard let space = text.firstIndex(of: " "), let method = HTTPRequest.Method(String(text[..<space])) else {
            return nil
        }
        return CacheKey(method: method, normalisedURL: String(text[text.index(after: space)...]))
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

/// The earlier name of ``StoreKitLiteCacheStore``.
@available(*, deprecated, renamed: "StoreKitLiteCacheStore")
public typealias StoreCacheStore = StoreKitLiteCacheStore
