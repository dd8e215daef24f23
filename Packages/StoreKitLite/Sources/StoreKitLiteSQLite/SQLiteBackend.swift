import Foundation
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
/// Reads that are short by construction run on the calling thread (the backend is a
/// ``StoreKitLite/SynchronousStoreBackend``): each on a read-only connection of the backend's own, with its prepared
/// statements cached, and with no transaction around a single statement; in WAL mode such a read never waits for a
/// write. Commits go through group commit: batches that arrive while a commit is running share the next transaction
/// and its sync to disk, each in a savepoint of its own, so a member that fails is rolled back alone.
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
public final class SQLiteBackend: SynchronousStoreBackend {
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

    /// Where the backend runs an `async` commit: on the writer's dispatch queue while the calling task suspends, or,
    /// when the writer is idle, on the calling thread. Reads do not depend on it (see the type's overview); the
    /// "Execution model" article says what runs where.
    public enum Execution: Sendable, Hashable {
        /// Commits run on GRDB's writer queue, in groups; the calling task suspends until its batch is durable, so a
        /// cooperative thread never waits for a commit's `fsync`. The default.
        case suspending
        /// A commit of up to 64 rows runs on the calling thread when no other commit is running or queued, saving
        /// the hops to the writer queue and back; the calling thread is busy for the whole commit, `fsync` included.
        /// Otherwise as ``suspending``.
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
    /// Where `async` commits run.
    public let execution: Execution
    /// Which commits ``committedChanges()`` delivers: this backend's own, or every process's through the store's
    /// change log.
    public let changeFeed: ChangeFeed

    let writer = Locked<(any DatabaseWriter)?>(nil)
    let broadcaster = CommitBroadcaster()
    let insertTexts = SQLiteWriter.InsertTexts()
    /// Writes submitted to the writer connection and not finished yet (see ``apply(_:)``).
    let pendingWrites = Locked(0)
    /// Gathers concurrent commits into shared transactions.
    let groupCommit = GroupCommit()
    /// Transactions the group commit has committed (for tests: fewer than the batches they carried).
    let groupTransactionCount = Locked(0)
    var groupTransactions: Int { groupTransactionCount.withLock { $0 } }
    /// Read-only connections of the backend's own for reads on the calling thread, idle ones kept for the next read;
    /// `closed` once ``close()`` has run, after which a connection coming back is closed instead.
    let callingThreadReaders = Locked<(idle: [DatabaseQueue], closed: Bool)>(([], false))
    /// This backend's identity in the change log.
    private let origin = UUID()
    /// The commits of an in-memory store, for ``commitVersion()``.
    let ownCommits = Locked<Int64>(0)
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

    /// The largest batch (in rows) an `async` commit runs on the calling thread with ``Execution/callingThread``.
    static let callingThreadRowLimit = 64
    /// The most reader connections GRDB's pool opens for the `async` reads.
    static let maximumReaderCount = 5
    /// The most idle read-only connections kept for reads on the calling thread; one more is opened when a read
    /// finds none idle (there are never more than threads reading at once), and closed after it if this many wait.
    static let maximumIdleCallingThreadReaders = 8
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

    /// `sqlite`, with the file name (never its folder) as the namespace; none for an in-memory database.
    public var backendDescription: BackendDescription {
        let durability = durability == .full ? "full" : "normal"
        return switch location {
        case .file(let path):
            BackendDescription(
                system: "sqlite",
                namespace: URL(fileURLWithPath: path).lastPathComponent,
                durability: durability
            )
        case .memory: BackendDescription(system: "sqlite")
        }
    }

    public func migrate(to model: StoreModel) async throws(StoreError) {
        try await migrate(to: model, recording: .off)
    }

    public func migrate(to model: StoreModel, recording recorder: MigrationRecorder) async throws(StoreError) {
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
                    try recorder.record(migration, at: position) { () throws in
                        for step in migration.steps {
                            try db.execute(sql: SQLSchema.statement(for: step))
                        }
                        try db.execute(
                            sql: "INSERT INTO storekitlite_migrations (position, name) VALUES (?, ?)",
                            arguments: [position, migration.name]
                        )
                    }
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
    func changeLogWrite() -> SQLiteChangeLog.Write? {
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

    public func committedChanges() -> AsyncStream<ChangeBatch> {
        broadcaster.subscribe()
    }

    /// A generation number that changes once any connection (this backend's writer, or another process's) has
    /// committed to the store. For a file, a read-only connection of the backend's own keeps it: it reads the header
    /// of the write-ahead log's shared index (a few memory loads), or, when that header cannot be read, SQLite's
    /// `data_version` (a read transaction: two file-lock calls); it never waits for a write. An in-memory store has
    /// no other connection, so its number counts the backend's own commits; a file opened in SQLite's `immutable`
    /// mode cannot change, so its number never does.
    public func commitVersion() throws(StoreError) -> Int64 {
        let database = try database()
        guard case .file(let path) = location else { return ownCommits.withLock { $0 } }
        if access == .readOnly, database is DatabaseQueue { return 0 }
        return try dataVersion.withLock { (reader: inout SQLiteDataVersion?) throws(StoreError) -> Int64 in
            // An open connection is not closed yet: `close()` closes it under this lock.
            if let reader { return try reader.read() }
            // Checked under this lock: `close()` clears `writer` before it closes this connection under the lock,
            // so no connection is opened on a closed store.
            _ = try self.database()
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
    static func logCommit(_ batch: ChangeBatch, to logger: Logger) {
        guard logger.logLevel <= .trace else { return }
        logger.trace("committing batch", metadata: batch.logSummary.mapValues { .string($0) })
    }

    /// Maps an error and logs its kind (never values or SQL arguments).
    func failure(_ error: any Error, operation: String) -> StoreError {
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

    func database() throws(StoreError) -> any DatabaseWriter {
        guard let database = writer.withLock({ $0 }) else {
            throw StoreError(.notInitialized, detail: "the SQLite store is not open; migrate first")
        }
        return database
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let database = try database()
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        do {
            return try await database.write(body)
        } catch {
            throw failure(error, operation: "write")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let database = try database()
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
