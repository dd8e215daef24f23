public import Foundation
import GRDB
import GRDBSQLite
public import Logging
public import StoreKitLite

/// The SQLite backend, on GRDB: a `DatabasePool` in WAL mode (one writer, concurrent readers that a long write
/// never blocks) for a file, or a single in-memory connection.
///
/// Hot paths bind and step GRDB's cached prepared statements through the raw SQLite handle; predicates become
/// SQL with bound parameters only. Tables are `STRICT, WITHOUT ROWID`, keyed by the 16 bytes of the record ID.
///
/// The store is opened by ``migrate(to:)``, which a ``StoreKitLite/PersistenceService`` calls when it initializes:
/// errors such as a corrupt file, an unwritable directory or a newer schema surface there, as typed errors. An
/// existing file is inspected read-only before it is opened for writing, so a file that is refused keeps every
/// byte, and no `-wal` or `-shm` file is created beside it. ``close()`` checkpoints the log and leaves the database
/// as one file. With ``Access/readOnly`` the store is read and never written (a read-only file or directory can be
/// read).
///
/// The backend logs nothing unless it is handed a `Logger`. With one, it logs opening the store and applying
/// migrations (`info`), failed operations (`debug`, error kind only), and each commit's row counts (`trace`, logged
/// inside the write transaction, just before it commits). Row values, bound parameters and SQL arguments are never
/// logged.
public final class SQLiteBackend: StoreBackend {
    /// Where the database lives.
    public enum Location: Sendable, Hashable {
        /// A database file (created if missing) with its `-wal` and `-shm` companions.
        case file(path: String)
        /// A private in-memory database, gone when the backend is released.
        case memory
    }

    /// Whether the store may be written.
    public enum Access: Sendable, Hashable {
        /// Reads and writes; a missing file is created and migrated.
        case readWrite
        /// Reads only: the store must exist with every migration of the model applied, and every write fails with
        /// ``StoreKitLite/StoreError/Code/readOnly``. A file in a directory the process cannot write to is read
        /// through SQLite's `immutable` mode, which assumes no other process changes it meanwhile.
        case readOnly
    }

    /// Where the backend runs SQLite: on GRDB's own dispatch queues while the calling task suspends, or, when it
    /// can do so without waiting, on the calling thread. The "Execution model" article says what runs where.
    public enum Execution: Sendable, Hashable {
        /// Every read and commit runs on GRDB's reader and writer queues; the calling task suspends until it is
        /// done, so a cooperative thread never waits for SQLite's disk I/O (a read from a cold page cache, a
        /// commit's `fsync`). The default.
        case suspending
        /// Reads of a file store run on the calling thread when a reader connection is free, and commits of up to 64
        /// rows when the writer is idle, saving the hops to GRDB's queues and back. The calling thread is busy for
        /// the whole read or commit, `fsync` included: choose it for a process whose tasks are short store
        /// accesses, measured to be faster for that load.
        case callingThread
    }

    /// How hard a commit works to survive power loss (SQLite's `synchronous`), chosen when the store is opened.
    public enum Durability: Sendable, Hashable {
        /// `synchronous = FULL`: every commit is fsync'd to the WAL before it returns.
        case full
        /// `synchronous = NORMAL`: a commit survives a process crash; the last commits may be lost on power loss.
        case normal
    }

    /// Where the database lives.
    public let location: Location
    /// The durability every connection is opened with.
    public let durability: Durability
    /// A cap on the database size; writes beyond it fail with ``StoreKitLite/StoreError/Code/diskFull``.
    public let maximumSizeInBytes: Int?
    /// Where the backend logs, if anywhere.
    public let logger: Logger?
    /// Whether the store may be written.
    public let access: Access
    /// Where reads and commits run.
    public let execution: Execution
    /// Which commits ``committedChanges()`` delivers: this backend's own, or every process's through the store's
    /// change log.
    public let changeFeed: ChangeFeed

    private let writer = Locked<(any DatabaseWriter)?>(nil)
    private let broadcaster = CommitBroadcaster()
    private let insertTexts = SQLiteWriter.InsertTexts()
    /// Writes submitted to the writer connection and not finished yet (see ``apply(_:)``).
    private let pendingWrites = Locked(0)
    /// Reads of this backend in flight, on the calling thread or on GRDB's reader queues (see
    /// ``fetchOnCallingThread(_:reading:)``).
    private let readsInFlight = Locked(0)
    /// Read-only connections of the backend's own for reads on the calling thread, idle ones kept for the next read;
    /// `closed` once ``close()`` has run, after which a connection coming back is closed instead.
    private let callingThreadReaders = Locked<(idle: [DatabaseQueue], closed: Bool)>(([], false))
    /// This backend's identity in the change log.
    private let origin = UUID()
    /// The connection ``commitVersion()`` reads on, opened at its first call and closed by ``close()``.
    private let dataVersion = Locked<SQLiteDataVersion?>(nil)
    /// Checkpoints the write-ahead log of a file opened for writing, off the committing writer; kept until the
    /// backend goes, since the writer's hook refers to it.
    private let checkpointer = Locked<SQLiteCheckpointer?>(nil)

    /// Background checkpoints completed so far (for tests).
    var completedCheckpoints: Int { checkpointer.withLock { $0?.completedCheckpoints ?? 0 } }

    /// Returns once the background checkpoints asked for so far have run (for tests).
    func checkpointsSettled() async {
        await checkpointer.withLock { $0 }?.settled()
    }
    /// The change log's state: whether commits are logged, how many since the last pruning, and the follower.
    private let changeLog = Locked(ChangeLogState())

    private struct ChangeLogState {
        var logsCommits = false
        var commitsSincePruning = 0
        var follower: Task<Void, Never>?
        var status = ChangeFeedStatus()
    }

    /// Whether the backend follows the other processes' commits, and how far it has got.
    public var changeFeedStatus: ChangeFeedStatus {
        changeLog.withLock { $0.status }
    }

    deinit {
        changeLog.withLock { $0.follower?.cancel() }
    }

    /// How many commits a backend logs between two prunings of the change log.
    static let commitsPerPruning = 256
    /// The most log entries a follower reads in one transaction.
    static let followerBatchLimit = 256

    /// The largest batch (in rows) committed on the calling thread when the writer is idle.
    static let callingThreadRowLimit = 64
    /// The most reader connections a file's pool opens (GRDB's default, set explicitly because
    /// ``fetchOnCallingThread(_:reading:)`` relies on it).
    static let maximumReaderCount = 5
    /// The busy timeout every connection is opened with, in milliseconds.
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// A backend for a database file; nothing is opened until the service initializes.
    ///
    /// - Parameter logger: where to log; `nil` (the default) logs nothing.
    public convenience init(
        path: String,
        access: Access = .readWrite,
        execution: Execution = .suspending,
        durability: Durability = .full,
        maximumSizeInBytes: Int? = nil,
        changeFeed: ChangeFeed = .thisProcess,
        logger: Logger? = nil
    ) {
        self.init(
            location: .file(path: path),
            access: access,
            execution: execution,
            durability: durability,
            maximumSizeInBytes: maximumSizeInBytes,
            changeFeed: changeFeed,
            logger: logger
        )
    }

    /// A backend at `location`; nothing is opened until the service initializes.
    ///
    /// - Parameters:
    ///   - changeFeed: which commits ``committedChanges()`` delivers. With
    ///     ``StoreKitLite/ChangeFeed/allProcesses(pollInterval:retention:)`` the store keeps a change log, and the
    ///     backend reads the other processes' commits from it every `pollInterval` (an in-memory store has no other
    ///     processes, and ignores it).
    ///   - logger: where to log; `nil` (the default) logs nothing.
    public init(
        location: Location,
        access: Access = .readWrite,
        execution: Execution = .suspending,
        durability: Durability = .full,
        maximumSizeInBytes: Int? = nil,
        changeFeed: ChangeFeed = .thisProcess,
        logger: Logger? = nil
    ) {
        self.location = location
        self.changeFeed = changeFeed
        self.access = access
        self.execution = execution
        self.durability = durability
        self.maximumSizeInBytes = maximumSizeInBytes
        self.logger = logger
    }

    /// The durability SQLite reports for the writer connection (`PRAGMA synchronous`).
    public func effectiveDurability() async throws(StoreError) -> Durability {
        let level = try await write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 0 }
        return level >= 2 ? .full : .normal
    }

    // MARK: - StoreBackend

    public func migrate(to model: StoreModel) async throws(StoreError) {
        if writer.withLock({ $0 }) == nil {
            try inspect(for: model)
        }
        let database = try open()
        if access == .readOnly {
            try await verifyMigrations(of: model, in: database)
            try await startFollowing(model, in: database)
            return
        }
        let logger = logger
        let createsLog = changeFeed.followsOtherProcesses && location != .memory
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        do {
            try await database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS storekitlite_migrations (
                            position INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE) STRICT
                        """
                )
                let applied = try String.fetchAll(db, sql: "SELECT name FROM storekitlite_migrations ORDER BY position")
                let pending = try model.pendingMigrations(afterApplied: applied)
                var position = applied.count
                for migration in pending {
                    for step in migration.steps {
                        try db.execute(sql: SQLSchema.statement(for: step))
                    }
                    try db.execute(
                        sql: "INSERT INTO storekitlite_migrations (position, name) VALUES (?, ?)",
                        arguments: [position, migration.name]
                    )
                    position += 1
                    logger?.info("applied migration", metadata: ["storekitlite.migration": "\(migration.name)"])
                }
                if createsLog {
                    try db.execute(sql: SQLiteChangeLog.create)
                }
            }
        } catch {
            throw failure(error, operation: "migrate")
        }
        try await startFollowing(model, in: database)
    }

    /// Notes whether the store has a change log (commits are then logged, whatever this backend's feed) and, for a
    /// feed of all processes, starts following it from its current end.
    private func startFollowing(_ model: StoreModel, in database: any DatabaseWriter) async throws(StoreError) {
        let (exists, last): (Bool, Int64)
        do {
            (exists, last) = try await database.read { db in
                let exists = try SQLiteChangeLog.exists(in: db)
                return (exists, exists ? try SQLiteChangeLog.lastSequence(in: db) : 0)
            }
        } catch {
            throw failure(error, operation: "migrate")
        }
        let follows = exists && changeFeed.followsOtherProcesses
        changeLog.withLock { state in
            state.logsCommits = exists && access == .readWrite
            guard follows, state.follower == nil else { return }
            state.status.isFollowing = true
            state.follower = Task { [weak self, interval = changeFeed.pollInterval] in
                var last = last
                while !Task.isCancelled {
                    guard let self else { return }
                    last = await self.deliverOtherCommits(after: last, model: model)
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Publishes the commits other backends logged after `sequence`; returns the last sequence number read.
    private func deliverOtherCommits(after sequence: Int64, model: StoreModel) async -> Int64 {
        guard let database = writer.withLock({ $0 }) else { return sequence }
        var last = sequence
        let origin = origin
        while !Task.isCancelled {
            let read: (batches: [ChangeBatch], last: Int64)
            do {
                read = try await database.read { [last] db in
                    try SQLiteChangeLog.batches(
                        after: last,
                        skipping: origin,
                        model: model,
                        limit: Self.followerBatchLimit,
                        in: db
                    )
                }
            } catch {
                _ = failure(error, operation: "follow the change log")
                changeLog.withLock { $0.status.isConnected = false }
                return last
            }
            for batch in read.batches where !batch.isEmpty {
                broadcaster.publish(batch)
            }
            changeLog.withLock { state in
                state.status.isConnected = true
                state.status.lastRead = Date()
                state.status.deliveredBatches += read.batches.count
                if let sequence = read.batches.last?.sequence { state.status.lastSequence = sequence }
            }
            guard read.last != last else { return last }
            last = read.last
        }
        return last
    }

    /// What the next commit appends to the change log; `nil` when the store has none.
    private func changeLogWrite() -> SQLiteChangeLog.Write? {
        // A backend that does not follow still logs into an existing log, and prunes it to the default retention.
        let retention = changeFeed.retention ?? .seconds(3_600)
        return changeLog.withLock { state -> SQLiteChangeLog.Write? in
            guard state.logsCommits else { return nil }
            state.commitsSincePruning += 1
            var pruneBefore: Date?
            if state.commitsSincePruning >= Self.commitsPerPruning {
                state.commitsSincePruning = 0
                let (seconds, attoseconds) = retention.components
                pruneBefore = Date(timeIntervalSinceNow: -(Double(seconds) + Double(attoseconds) / 1e18))
            }
            return SQLiteChangeLog.Write(origin: origin, pruneBefore: pruneBefore)
        }
    }

    /// Refuses, before anything is opened for writing, a file that is not a database of this model: not an SQLite
    /// database, corrupt, or with migrations the model does not know (and, read-only, one that needs migrations).
    private func inspect(for model: StoreModel) throws(StoreError) {
        guard case .file(let path) = location else { return }
        do throws(StoreError) {
            guard let applied = try SQLiteFileInspection.appliedMigrations(atPath: path) else {
                guard access == .readWrite else {
                    throw StoreError(
                        .cannotOpen,
                        detail: "open read-only",
                        reason: "there is no store at this path"
                    )
                }
                return
            }
            let pending = try model.pendingMigrations(afterApplied: applied)
            if access == .readOnly, !pending.isEmpty {
                throw StoreError(
                    .readOnly,
                    detail: "the store needs \(pending.count) migrations and is opened read-only"
                )
            }
        } catch {
            logger?.debug(
                "store operation failed",
                metadata: ["storekitlite.operation": "open", "storekitlite.error": "\(error.code)"]
            )
            throw error
        }
    }

    /// Checks, reading only, that a read-only store has every migration of the model applied.
    private func verifyMigrations(of model: StoreModel, in database: any DatabaseWriter) async throws(StoreError) {
        let applied: [String]
        do {
            applied = try await database.read { db -> [String] in
                guard try db.tableExists("storekitlite_migrations") else { return [] }
                return try String.fetchAll(db, sql: "SELECT name FROM storekitlite_migrations ORDER BY position")
            }
        } catch {
            throw failure(error, operation: "migrate")
        }
        let pending = try model.pendingMigrations(afterApplied: applied)
        guard pending.isEmpty else {
            throw StoreError(.readOnly, detail: "the store needs \(pending.count) migrations and is opened read-only")
        }
    }

    /// Writes a batch in one transaction.
    ///
    /// With ``Execution/callingThread``, a small batch (a single-record `saveAndPersist`) is committed on the
    /// calling thread when no other write of this backend is queued or running and no other connection holds the
    /// write lock: the commit then costs no
    /// thread hops, and the caller, which waits for the commit anyway, is blocked only for the commit itself (its
    /// `fsync` under ``Durability/full``). Otherwise, and for larger batches, the batch goes to GRDB's writer queue
    /// and the caller suspends until it is committed.
    public func apply(_ batch: ChangeBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        let database = try database()
        guard access == .readWrite else {
            throw StoreError(.readOnly, detail: "write", reason: "the store is opened read-only")
        }
        if execution == .callingThread, Self.rowCount(of: batch) <= Self.callingThreadRowLimit,
            try applyOnCallingThread(batch, database: database)
        {
            broadcaster.publish(batch)
            return
        }
        let insertTexts = insertTexts
        let log = changeLogWrite()
        if let logger {
            try await write { db in
                try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log)
                Self.logCommit(batch, to: logger)
            }
        } else {
            try await write { db in try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log) }
        }
        broadcaster.publish(batch)
    }

    private static func rowCount(of batch: ChangeBatch) -> Int {
        var count = 0
        for changes in batch.entities {
            count += changes.inserts.count + changes.updates.count + changes.deletes.count
        }
        return count
    }

    /// Commits `batch` on this thread if the writer is idle; returns `false`, having done nothing, when it is not
    /// (a write of this backend is queued or running, or another connection holds the write lock).
    private func applyOnCallingThread(_ batch: ChangeBatch, database: any DatabaseWriter) throws(StoreError) -> Bool {
        let claimed = pendingWrites.withLock { pending in
            guard pending == 0 else { return false }
            pending = 1
            return true
        }
        guard claimed else { return false }
        defer { pendingWrites.withLock { $0 -= 1 } }
        let insertTexts = insertTexts
        let logger = logger
        let log = changeLogWrite()
        do {
            // No other write of this backend is queued or running, so GRDB runs this on the calling thread
            // without waiting for its queue.
            return try database.writeWithoutTransaction { db -> Bool in
                let connection = db.sqliteConnection
                // Never wait for another connection's write lock here: `BEGIN IMMEDIATE` fails at once instead,
                // and the batch goes through the writer queue with the normal busy timeout.
                sqlite3_busy_timeout(connection, 0)
                defer { sqlite3_busy_timeout(connection, Self.busyTimeoutMilliseconds) }
                var began = false
                do {
                    try db.inTransaction(.immediate) {
                        began = true
                        try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log)
                        if let logger { Self.logCommit(batch, to: logger) }
                        return .commit
                    }
                } catch let error as DatabaseError where !began && error.resultCode == .SQLITE_BUSY {
                    logger?.debug("write lock held by another connection; committing through the writer queue")
                    return false
                }
                return true
            }
        } catch {
            throw failure(error, operation: "write")
        }
    }

    public func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow] {
        try query.validate()
        let select = SQLQuery(query)
        return try await read { db in
            try SQLiteReader.rows(for: select, columnCount: query.entity.columns.count, in: db)
        }
    }

    public func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try query.validate()
        let select = SQLQuery(query)
        let columnCount = query.entity.columns.count
        return try await self.read { db in
            try SQLiteReader.read(select, columnCount: columnCount, in: db, reading: read)
        }
    }

    /// With ``Execution/callingThread``, reads on the calling thread when the store is a file and a pool reader is
    /// free, so the reading closure runs in the caller's isolation and the caller never suspends; `nil` with
    /// ``Execution/suspending``, for an in-memory store (its one connection also writes, so a read could wait for a
    /// write) and when every reader may be busy.
    ///
    /// A read in WAL mode never waits for a write, and a reader is claimed only while fewer reads than the pool
    /// has readers are in flight, so the calling thread never waits for another read either: it is busy only for
    /// its own read (and, the first time, for opening a reader connection).
    public func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        try query.validate()
        let select = SQLQuery(query)
        let columnCount = query.entity.columns.count
        // One SELECT: SQLite runs it against one snapshot by itself, so no transaction is wrapped around it.
        return try readOnCallingThread(singleStatement: true) { db in
            try SQLiteReader.read(select, columnCount: columnCount, in: db, reading: read)
        }
    }

    /// Fetches rows by ID on the calling thread under the same conditions as
    /// ``fetchOnCallingThread(_:reading:)``: a file store with a pool reader free; `nil` otherwise.
    public func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]? {
        // One ID is one SELECT; several are several, read inside one transaction so they see one snapshot.
        try readOnCallingThread(singleStatement: ids.count == 1) { db in
            try SQLiteReader.rows(ids: ids, entity: entity, in: db)
        }
    }

    /// Runs `body` on the calling thread in a read-only connection of the backend's own when the store is a file
    /// (opened as a pool) and fewer reads than ``maximumReaderCount`` are in flight (so it never waits for another
    /// read, and in WAL mode never for a write); `nil` without running it otherwise. With `singleStatement`, `body`
    /// runs one statement, which SQLite already runs against one snapshot, so no `BEGIN`/`COMMIT` pair is added
    /// (a third of a point read's SQLite work).
    ///
    /// The connections are taken from a list under a lock held for a push or a pop, not from GRDB's reader pool:
    /// the pool's bookkeeping synchronizes through a dispatch queue (a barrier to take a reader and one to give it
    /// back), where two reads that meet wait on each other through thread wake-ups, and under load those waits
    /// were the longest part of the slowest reads.
    private func readOnCallingThread<T>(
        singleStatement: Bool = false,
        _ body: (Database) throws -> T
    ) throws(StoreError) -> T? {
        guard execution == .callingThread, case .file(let path) = location, writer.withLock({ $0 }) is DatabasePool
        else { return nil }
        let claimed = readsInFlight.withLock { reads in
            guard reads < Self.maximumReaderCount else { return false }
            reads += 1
            return true
        }
        guard claimed else { return nil }
        defer { readsInFlight.withLock { $0 -= 1 } }
        do {
            let reader = try callingThreadReaders.withLock { $0.idle.popLast() } ?? Self.openReader(path: path)
            defer {
                callingThreadReaders.withLock { readers in
                    if !readers.closed { readers.idle.append(reader) }
                }
            }
            return try reader.inDatabase { db in
                guard !singleStatement else { return try body(db) }
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no read result") }
                return result
            }
        } catch {
            throw failure(error, operation: "read")
        }
    }

    /// A read-only connection to the file at `path`, for ``readOnCallingThread(singleStatement:_:)``.
    private static func openReader(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        configuration.label = "StoreKitLite.callingThreadReader"
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    public func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        try query.validate()
        let count = SQLQuery.count(query)
        let matching = SQLQuery.matchingID(query)
        let skipped = Set(excluded)
        let total = try await read { db in
            try SQLiteReader.count(count, excluding: skipped, matching: matching, in: db)
        }
        return query.slicedCount(total)
    }

    public func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        guard !ids.isEmpty else { return [] }
        return try await read { db in try SQLiteReader.rows(ids: ids, entity: entity, in: db) }
    }

    // MARK: - Blocking forms (GRDB's synchronous access, for the service's `…AndWait` methods)

    /// `true`: reads and commits have blocking forms on GRDB's synchronous access.
    public var supportsBlockingAccess: Bool { true }

    public func fetchBlocking(_ query: RowQuery) throws(StoreError) -> [StoreRow]? {
        try query.validate()
        let select = SQLQuery(query)
        let columnCount = query.entity.columns.count
        return try readBlocking { db in try SQLiteReader.rows(for: select, columnCount: columnCount, in: db) }
    }

    public func fetchBlocking<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        try query.validate()
        let select = SQLQuery(query)
        let columnCount = query.entity.columns.count
        return try readBlocking { db in
            try SQLiteReader.read(select, columnCount: columnCount, in: db, reading: read)
        }
    }

    public func fetchBlocking(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]? {
        guard !ids.isEmpty else { return [] }
        return try readBlocking { db in try SQLiteReader.rows(ids: ids, entity: entity, in: db) }
    }

    public func countBlocking(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int? {
        try query.validate()
        let count = SQLQuery.count(query)
        let matching = SQLQuery.matchingID(query)
        let skipped = Set(excluded)
        let total = try readBlocking { db in
            try SQLiteReader.count(count, excluding: skipped, matching: matching, in: db)
        }
        return query.slicedCount(total)
    }

    /// Commits on GRDB's writer queue while the calling thread waits for it (GRDB's synchronous `write`).
    public func applyBlocking(_ batch: ChangeBatch) throws(StoreError) -> Bool {
        guard !batch.isEmpty else { return true }
        let database = try database()
        guard access == .readWrite else {
            throw StoreError(.readOnly, detail: "write", reason: "the store is opened read-only")
        }
        let insertTexts = insertTexts
        let logger = logger
        let log = changeLogWrite()
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        do {
            try database.write { db in
                try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log)
                if let logger { Self.logCommit(batch, to: logger) }
            }
        } catch {
            throw failure(error, operation: "write")
        }
        broadcaster.publish(batch)
        return true
    }

    /// Runs `body` in a GRDB read on the calling thread, which waits for a reader connection if all are busy.
    private func readBlocking<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        let database = try database()
        readsInFlight.withLock { $0 += 1 }
        defer { readsInFlight.withLock { $0 -= 1 } }
        do {
            return try database.read(body)
        } catch {
            throw failure(error, operation: "read")
        }
    }

    public func committedChanges() -> AsyncStream<ChangeBatch> {
        broadcaster.subscribe()
    }

    /// A generation number kept by a read-only connection of the backend's own: it changes once any other
    /// connection (this backend's writer, or another process's) has committed to the file. Read on the calling
    /// thread from the header of the write-ahead log's shared index (a few memory loads), or, when that header
    /// cannot be read, from SQLite's `data_version` (a read transaction: two file-lock calls); never waits for a
    /// write. `nil` for an in-memory or read-only store.
    public func commitVersion() throws(StoreError) -> Int64? {
        guard case .file(let path) = location, access == .readWrite else { return nil }
        return try dataVersion.withLock { (reader: inout SQLiteDataVersion?) throws(StoreError) -> Int64 in
            // An open connection is not closed yet: `close()` closes it under this lock.
            if let reader { return try reader.read() }
            // Checked under this lock: `close()` clears `writer` before it closes this connection under the lock,
            // so no connection is opened on a closed store.
            _ = try database()
            let opened = try SQLiteDataVersion(path: path, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds)
            reader = opened
            return try opened.read()
        }
    }

    /// Checkpoints the write-ahead log into the database file and closes every connection. Later operations
    /// fail with ``StoreKitLite/StoreError/Code/notInitialized``; closing twice does nothing.
    public func close() async throws(StoreError) {
        let follower = changeLog.withLock { state in
            defer {
                state.follower = nil
                state.status.isFollowing = false
                state.status.isConnected = false
            }
            return state.follower
        }
        follower?.cancel()
        await follower?.value
        guard
            let database = writer.withLock({ current in
                defer { current = nil }; return current
            })
        else { return }
        // Before the pool, so that the pool's writer is still the last connection to close.
        dataVersion.withLock { $0 = nil }
        let readers = callingThreadReaders.withLock { readers in
            readers.closed = true
            defer { readers.idle = [] }
            return readers.idle
        }
        do {
            for reader in readers { try reader.close() }
        } catch {
            throw failure(error, operation: "close")
        }
        await checkpointer.withLock { $0 }?.close()
        do {
            if let pool = database as? DatabasePool {
                if access == .readWrite {
                    _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
                }
                // Readers first, so that the writer is the last connection to close: SQLite then checkpoints once
                // more and removes the `-wal` and `-shm` files, and the store is one file again.
                pool.releaseMemory()
                try pool.close()
            } else if let queue = database as? DatabaseQueue {
                try queue.close()
            }
        } catch {
            throw failure(error, operation: "close")
        }
        logger?.info("closed store", metadata: ["storekitlite.location": "\(location.logDescription)"])
    }

    // MARK: - Logging

    /// Logs a commit's row counts (never its values), inside the write transaction.
    private static func logCommit(_ batch: ChangeBatch, to logger: Logger) {
        guard logger.logLevel <= .trace else { return }
        logger.trace("committing batch", metadata: batch.logSummary.mapValues { .string($0) })
    }

    /// Maps an error and logs its kind (never values or SQL arguments).
    private func failure(_ error: any Error, operation: String) -> StoreError {
        let mapped = SQLiteErrors.map(error, operation: operation)
        logger?.debug(
            "store operation failed",
            metadata: ["storekitlite.operation": "\(operation)", "storekitlite.error": "\(mapped.code)"]
        )
        return mapped
    }

    // MARK: - Connections

    private func open() throws(StoreError) -> any DatabaseWriter {
        if let existing = writer.withLock({ $0 }) { return existing }
        var configuration = Configuration()
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        let maximumSize = maximumSizeInBytes
        configuration.prepareDatabase { db in
            if let maximumSize {
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumSize / pageSize))")
            }
        }
        configuration.busyMode = .timeout(TimeInterval(Self.busyTimeoutMilliseconds) / 1000)
        configuration.maximumReaderCount = Self.maximumReaderCount
        let database: any DatabaseWriter
        var checkpointer: SQLiteCheckpointer?
        do {
            switch (location, access) {
            case (.file(let path), .readOnly):
                configuration.readonly = true
                database = try Self.openReadOnly(path: path, configuration: configuration)
            case (.file(let path), .readWrite):
                let pool = try DatabasePool(path: path, configuration: configuration)
                // Reading the schema makes SQLite parse the file now, so a corrupt file fails here.
                _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                // GRDB sets `synchronous = NORMAL` on the WAL writer after `prepareDatabase`; the choice made here
                // wins because it is set last, on the one writer connection.
                let background = SQLiteCheckpointer(path: path, synchronous: synchronous)
                try pool.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
                    if let connection = db.sqliteConnection { background.install(on: connection) }
                }
                checkpointer = background
                database = pool
            case (.memory, _):
                let queue = try DatabaseQueue(configuration: configuration)
                try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
                database = queue
            }
        } catch {
            throw failure(error, operation: "open")
        }
        logger?.info(
            "opened store",
            metadata: [
                "storekitlite.location": "\(location.logDescription)",
                "storekitlite.durability": "\(durability == .full ? "full" : "normal")",
            ]
        )
        return writer.withLock { current in
            if let current { return current }
            current = database
            self.checkpointer.withLock { $0 = checkpointer }
            return database
        }
    }

    /// A read-only pool on `path`; when SQLite cannot open one (in WAL mode with no `-shm` file and a directory it
    /// cannot create one in, SQLite reports `SQLITE_READONLY_CANTINIT` or `SQLITE_CANTOPEN`), a single connection
    /// in SQLite's `immutable` mode, which needs neither.
    private static func openReadOnly(path: String, configuration: Configuration) throws -> any DatabaseWriter {
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return pool
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY
        {
            // GRDB opens without SQLITE_OPEN_URI, so the URI form needs a library built with URI filenames on.
            guard sqlite3_compileoption_used("USE_URI") != 0 else { throw error }
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            let queue = try DatabaseQueue(path: "file:" + encoded + "?immutable=1", configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        }
    }

    private func database() throws(StoreError) -> any DatabaseWriter {
        guard let database = writer.withLock({ $0 }) else {
            throw StoreError(.notInitialized, detail: "the SQLite store is not open; migrate first")
        }
        return database
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let database = try database()
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        do {
            return try await database.write(body)
        } catch {
            throw failure(error, operation: "write")
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let database = try database()
        readsInFlight.withLock { $0 += 1 }
        defer { readsInFlight.withLock { $0 -= 1 } }
        do {
            return try await database.read(body)
        } catch {
            throw failure(error, operation: "read")
        }
    }
}

extension SQLiteBackend.Location {
    /// The file name (not the full path, which can name users or tenants) or `memory`.
    fileprivate var logDescription: String {
        switch self {
        case .file(let path): (path as NSString).lastPathComponent
        case .memory: "memory"
        }
    }
}
