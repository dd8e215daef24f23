public import Foundation
public import Logging
public import PostgresNIO
public import StoreKitLite

/// The PostgreSQL backend, on PostgresNIO's `PostgresClient` (a connection pool): for stores that several
/// processes or machines share.
///
/// Each store lives in one schema (``schema``): its tables, one per entity, and `storekitlite_migrations`, the
/// migrations applied. ``migrate(to:)`` creates the schema if needed and applies pending migrations in one
/// transaction, holding a transaction-scoped advisory lock on the schema's name, so processes starting together
/// migrate one after the other. Every batch is one transaction; every value is a bound parameter.
///
/// Queries give exactly the in-memory evaluation's results (``StoreKitLite/RowQuery/apply(to:)``): text columns
/// use the `C` collation (byte order, case-sensitive), `NULL` sorts first ascending, prefix and substring tests
/// never use `LIKE`, and comparisons across storage classes are decided as ``StoreKitLite/StoreValue`` orders them.
///
/// Two ways to run it:
/// - ``init(client:schema:changeFeed:copyThreshold:logger:)`` uses a `PostgresClient` you run (`client.run()`, typically in a
///   `ServiceGroup` beside your server); the backend never starts or stops it. Operations wait for a connection as
///   the client's pool does: while the server cannot be reached, for as long as the pool keeps trying.
/// - ``init(configuration:logger:)`` makes its own client and runs it in a task the backend owns, until
///   ``close()``. ``migrate(to:)`` first opens one plain connection, so an unreachable server, a refused login or a
///   missing database fail at once, as ``StoreKitLite/StoreError/Code/cannotOpen``.
///
/// Writes check revisions in their `WHERE` clauses, so two processes updating one record cannot both win: the
/// second transaction waits for the first, finds the revision changed, and fails as a whole with
/// ``StoreKitLite/StoreError/Code/conflict``.
///
/// ``committedChanges()`` reports this backend's commits and, with ``changeFeed`` set to
/// ``StoreKitLite/ChangeFeed/allProcesses(pollInterval:retention:)`` (the default), every other process's: each
/// commit appends an entry to the schema's change log in its own transaction, and after commits the backend sends a
/// `NOTIFY` of its own, outside them (at most one in flight, covering every commit that ended before it; see the
/// "Using PostgreSQL" article for why); the backend keeps one pooled connection listening, reads the log when notified (or every `pollInterval`), and after a lost
/// connection reconnects and reads on from where it stopped. ``changeFeedStatus`` says whether it is following.
///
/// The backend logs nothing unless it is handed a `Logger`. With one, it logs applying migrations (`info`), failed
/// operations (`debug`, error kind only) and each commit's row counts (`trace`); row values and bound parameters are
/// never logged. A backend that runs its own client also gives it the logger for its connection events.
public final class PostgresBackend: StoreBackend {
    /// The client the backend runs its queries on.
    public let client: PostgresClient
    /// The schema holding the store.
    public let schema: String
    /// Where the backend logs, if anywhere.
    public let logger: Logger?
    /// Which commits ``committedChanges()`` delivers.
    public let changeFeed: ChangeFeed
    /// The fewest new records of one entity in a batch that are written with one `COPY … FROM STDIN` instead of
    /// multi-row `INSERT`s; `nil` never uses `COPY`.
    public let copyThreshold: Int?

    /// The default ``copyThreshold``: below 200 records, `COPY`'s extra round trip costs more than its cheaper
    /// parsing saves.
    public static let defaultCopyThreshold = 200

    private enum State {
        case notMigrated
        case open
        case closed
    }

    private let state = Locked(State.notMigrated)
    /// The client's pool, through which the backend leases every connection it uses.
    private let pool: PostgresPool
    /// The configuration of a client the backend runs itself; `nil` for a client the caller runs.
    private let ownConfiguration: Configuration?
    /// The task running a client the backend owns.
    private let runTask = Locked<Task<Void, Never>?>(nil)
    private let broadcaster = CommitBroadcaster()
    /// This backend's identity in the change log.
    private let origin = UUID()
    private let changeLog = Locked(ChangeLogState())
    /// Wakes other processes' followers after commits, off the commit path.
    let notifier: PostgresCommitNotifier

    private struct ChangeLogState {
        var logsCommits = false
        var commitsSincePruning = 0
        var follower: Task<Void, Never>?
    }
    private let feedStatus = Locked(ChangeFeedStatus())

    /// How many commits a backend logs between two prunings of the change log.
    static let commitsPerPruning = 256
    /// The logger handed to PostgresNIO for queries: silent, so that it never logs SQL on the backend's behalf.
    private let queryLogger = Logger(label: "storekitlite.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A backend on a client you run (`client.run()` in a task or a `ServiceGroup`); nothing is opened until the
    /// service initializes.
    ///
    /// - Parameters:
    ///   - schema: the schema holding the store; created by ``migrate(to:)`` when missing.
    ///   - changeFeed: which commits ``committedChanges()`` delivers; by default every process's.
    ///   - copyThreshold: the fewest new records of one entity that a batch writes with `COPY`; `nil` never uses it.
    ///   - logger: where to log; `nil` (the default) logs nothing.
    public init(
        client: PostgresClient,
        schema: String = "public",
        changeFeed: ChangeFeed = .allProcesses(),
        copyThreshold: Int? = PostgresBackend.defaultCopyThreshold,
        logger: Logger? = nil
    ) {
        self.client = client
        self.copyThreshold = copyThreshold.map { max(1, $0) }
        self.pool = PostgresPool(client: client, maximumConnections: nil)
        self.notifier = PostgresCommitNotifier(
            pool: pool,
            channel: PostgresChangeLog.channel(for: schema),
            logger: Logger(label: "storekitlite.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        self.schema = schema
        self.changeFeed = changeFeed
        self.logger = logger
        self.ownConfiguration = nil
    }

    /// A backend that makes and runs its own client, until ``close()``.
    ///
    /// - Parameter logger: where to log; `nil` (the default) logs nothing.
    public init(configuration: Configuration, logger: Logger? = nil) {
        let client = PostgresClient(
            configuration: configuration.client,
            backgroundLogger: logger
                ?? Logger(label: "storekitlite.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        self.client = client
        self.pool = PostgresPool(client: client, maximumConnections: configuration.maximumConnections)
        self.notifier = PostgresCommitNotifier(
            pool: pool,
            channel: PostgresChangeLog.channel(for: configuration.schema),
            logger: Logger(label: "storekitlite.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        self.schema = configuration.schema
        self.changeFeed = configuration.changeFeed
        self.copyThreshold = configuration.copyThreshold.map { max(1, $0) }
        self.logger = logger
        self.ownConfiguration = configuration
        runTask.withLock { $0 = Task { await client.run() } }
    }

    deinit {
        runTask.withLock { $0?.cancel() }
        changeLog.withLock { $0.follower?.cancel() }
    }

    /// Whether the backend follows the other processes' commits, and how far it has got.
    public var changeFeedStatus: ChangeFeedStatus {
        feedStatus.withLock { $0 }
    }

    /// How the backend uses the client's connection pool: connections held and awaited now, and totals since the
    /// backend was made.
    public var poolStatus: PostgresPoolStatus {
        pool.current
    }

    // MARK: - StoreBackend

    /// `postgresql`, with `database|schema` as the namespace when the backend made its own client from a
    /// configuration naming the database, the schema alone otherwise.
    public var backendDescription: BackendDescription {
        let database = ownConfiguration?.database
        return BackendDescription(system: "postgresql", namespace: database.map { $0 + "|" + schema } ?? schema)
    }

    public func migrate(to model: StoreModel) async throws(StoreError) {
        try await migrate(to: model, recording: .off)
    }

    public func migrate(to model: StoreModel, recording recorder: MigrationRecorder) async throws(StoreError) {
        if state.withLock({ $0 }) == .closed {
            throw StoreError(.notInitialized, detail: "the PostgreSQL store is closed")
        }
        if let ownConfiguration, state.withLock({ $0 }) == .notMigrated {
            try await checkServer(ownConfiguration)
        }
        let schema = schema
        let logger = logger
        let queryLogger = queryLogger
        let createsLog = changeFeed.followsOtherProcesses
        let logExists: Bool
        do {
            logExists = try await PostgresTransaction.run(on: pool, operation: "migrate", logger: queryLogger) {
                connection in
                var lock = PostgresBinder()
                let key = lock.bind("storekitlite.migrate:" + schema)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))",
                        binds: lock.bindings
                    ),
                    logger: queryLogger
                ).consume()
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.quoted(schema))"),
                    logger: queryLogger
                ).consume()
                let migrations = PostgresSQL.table(PostgresSQL.migrationsTable, in: schema)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "CREATE TABLE IF NOT EXISTS \(migrations) "
                            + "(position bigint PRIMARY KEY NOT NULL, name text NOT NULL UNIQUE)"
                    ),
                    logger: queryLogger
                ).consume()
                var applied: [String] = []
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT name FROM \(migrations) ORDER BY position"),
                    logger: queryLogger
                )
                for try await row in rows {
                    applied.append(try row.makeRandomAccess()[0].decode(String.self))
                }
                let pending = try model.pendingMigrations(afterApplied: applied)
                var position = Int64(applied.count)
                for migration in pending {
                    try await recorder.record(migration, at: Int(position)) { () async throws in
                        for step in migration.steps {
                            try await connection.query(
                                PostgresQuery(unsafeSQL: PostgresSQL.statement(for: step, in: schema)),
                                logger: queryLogger
                            ).consume()
                        }
                        var binder = PostgresBinder()
                        let sql =
                            "INSERT INTO \(migrations) (position, name) VALUES "
                            + "(\(binder.bind(position)), \(binder.bind(migration.name)))"
                        try await connection.query(
                            PostgresQuery(unsafeSQL: sql, binds: binder.bindings),
                            logger: queryLogger
                        )
                        .consume()
                    }
                    position += 1
                    logger?.info("applied migration", metadata: ["storekitlite.migration": "\(migration.name)"])
                }
                if createsLog {
                    for statement in PostgresChangeLog.create(in: schema) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: queryLogger).consume()
                    }
                }
                return try await PostgresChangeLog.exists(in: schema, on: connection, logger: queryLogger)
            }
        } catch {
            throw failure(error, operation: "migrate")
        }
        state.withLock { current in
            if current == .notMigrated { current = .open }
        }
        if logExists && changeFeed.followsOtherProcesses {
            let horizon: Int64
            do {
                horizon = try await pool.withConnection { connection in
                    try await PostgresChangeLog.horizon(on: connection, logger: queryLogger)
                }
            } catch {
                throw failure(error, operation: "follow the change log")
            }
            startFollowing(model, from: horizon)
        }
        changeLog.withLock { $0.logsCommits = logExists }
    }

    /// Starts the follower: a task that listens on the store's channel on one pooled connection and reads the log
    /// from `horizon` on, reconnecting (after 0.1 s, doubling up to 5 s) whenever the connection is lost. The task
    /// holds what it needs, never the backend, so a backend released without ``close()`` ends it (in `deinit`).
    private func startFollowing(_ model: StoreModel, from horizon: Int64) {
        let follower = PostgresChangeFollower(
            pool: pool,
            schema: schema,
            origin: origin,
            model: model,
            pollInterval: changeFeed.pollInterval,
            broadcaster: broadcaster,
            status: feedStatus,
            logger: logger,
            queryLogger: queryLogger
        )
        changeLog.withLock { state in
            guard state.follower == nil else { return }
            feedStatus.withLock { $0.isFollowing = true }
            state.follower = Task { await follower.run(from: horizon) }
        }
    }

    /// Opens and closes one connection with the backend's own configuration, so that an unreachable server, a
    /// refused login or a missing database fail now, with their cause, instead of after the pool's retries.
    private func checkServer(_ configuration: Configuration) async throws(StoreError) {
        do {
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.any(),
                configuration: try configuration.connection(),
                id: 0,
                logger: queryLogger
            ).get()
            try await connection.close()
        } catch {
            throw failure(error, operation: "open")
        }
    }

    public func apply(_ batch: ChangeBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        try checkOpen()
        let schema = schema
        let logger = logger
        let queryLogger = queryLogger
        do {
            let origin = origin
            let (logs, prunes) = changeLog.withLock { state -> (Bool, Bool) in
                guard state.logsCommits else { return (false, false) }
                state.commitsSincePruning += 1
                guard state.commitsSincePruning >= Self.commitsPerPruning else { return (true, false) }
                state.commitsSincePruning = 0
                return (true, true)
            }
            // Every statement is made before the transaction begins, which then lasts only as long as the server
            // takes to run them.
            let plan = try PostgresWriter.plan(batch, schema: schema, copyThreshold: copyThreshold)
            let logEntry = logs ? PostgresChangeLog.append(batch, origin: origin, schema: schema) : nil
            try await PostgresTransaction.run(on: pool, operation: "write", logger: queryLogger) { connection in
                try await PostgresWriter.apply(plan, on: connection, logger: queryLogger)
                if let logEntry {
                    try await connection.run(logEntry, logger: queryLogger)
                }
                if let logger { Self.logCommit(batch, to: logger) }
            }
            if logs { notifier.commitEnded() }
            if prunes {
                do {
                    try await PostgresChangeLog.prune(
                        olderThan: changeFeed.retention ?? .seconds(3_600),
                        schema: schema,
                        on: pool,
                        logger: queryLogger
                    )
                } catch {
                    // The batch is committed; a failed pruning is retried after the next commitsPerPruning commits.
                    _ = failure(error, operation: "prune the change log")
                }
            }
        } catch {
            throw failure(error, operation: "write")
        }
        broadcaster.publish(batch)
    }

    public func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow] {
        try query.validate()
        try checkOpen()
        return try await read(PostgresQueryBuilder.select(query, schema: schema), of: query.entity)
    }

    /// Decodes the rows as they arrive into flat arrays (no ``StoreKitLite/StoreRow`` per row), then hands them to
    /// `read` through a cursor.
    public func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try query.validate()
        try checkOpen()
        let statement = PostgresQueryBuilder.select(query, schema: schema)
        let queryLogger = queryLogger
        let entity = query.entity
        let rows: PostgresFlatRows
        do {
            rows = try await pool.withConnection { connection in
                try await PostgresFlatRows.read(try await connection.query(statement, logger: queryLogger), of: entity)
            }
        } catch {
            throw failure(error, operation: "read")
        }
        return try read(PostgresFlatRowsCursor(rows))
    }

    public func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        try query.validate()
        try checkOpen()
        let statement = PostgresQueryBuilder.count(query, excluding: excluded, schema: schema)
        let queryLogger = queryLogger
        let total: Int64
        do {
            total = try await pool.withConnection { connection in
                var total: Int64 = 0
                for try await row in try await connection.query(statement, logger: queryLogger) {
                    total = try row.makeRandomAccess()[0].decode(Int64.self)
                }
                return total
            }
        } catch {
            throw failure(error, operation: "read")
        }
        return query.slicedCount(Int(total))
    }

    public func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        guard !ids.isEmpty else { return [] }
        try checkOpen()
        return try await read(PostgresQueryBuilder.rows(ids: ids, of: entity, schema: schema), of: entity)
    }

    public func committedChanges() -> AsyncStream<ChangeBatch> {
        broadcaster.subscribe()
    }

    /// Ends the backend: later operations fail with ``StoreKitLite/StoreError/Code/notInitialized``. A client
    /// the backend runs itself is shut down (its connections closed); a client you run is left running. Closing
    /// twice does nothing.
    public func close() async throws(StoreError) {
        state.withLock { $0 = .closed }
        let follower = changeLog.withLock { state in
            defer { state.follower = nil }
            return state.follower
        }
        follower?.cancel()
        await follower?.value
        await notifier.close()
        feedStatus.withLock { status in
            status.isFollowing = false
            status.isConnected = false
        }
        let task = runTask.withLock { task in
            defer { task = nil }
            return task
        }
        if let task {
            task.cancel()
            await task.value
        }
    }

    // MARK: - Internals

    private func checkOpen() throws(StoreError) {
        switch state.withLock({ $0 }) {
        case .open: return
        case .notMigrated: throw StoreError(.notInitialized, detail: "the PostgreSQL store is not open; migrate first")
        case .closed: throw StoreError(.notInitialized, detail: "the PostgreSQL store is closed")
        }
    }

    private func read(_ statement: PostgresQuery, of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        let queryLogger = queryLogger
        do {
            return try await pool.withConnection { connection in
                try await PostgresReader.rows(try await connection.query(statement, logger: queryLogger), of: entity)
            }
        } catch {
            throw failure(error, operation: "read")
        }
    }

    /// Logs a commit's row counts (never its values), inside the transaction.
    private static func logCommit(_ batch: ChangeBatch, to logger: Logger) {
        guard logger.logLevel <= .trace else { return }
        logger.trace("committing batch", metadata: batch.logSummary.mapValues { .string($0) })
    }

    /// Maps an error and logs its kind (never values or bound parameters).
    private func failure(_ error: any Error, operation: String) -> StoreError {
        let mapped = PostgresErrors.map(error, operation: operation)
        logger?.debug(
            "store operation failed",
            metadata: ["storekitlite.operation": "\(operation)", "storekitlite.error": "\(mapped.code)"]
        )
        return mapped
    }
}
