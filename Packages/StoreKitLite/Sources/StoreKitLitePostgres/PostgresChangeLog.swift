import Foundation
import Logging
import PostgresNIO
import StoreKitLite

/// The change log of a PostgreSQL store: the table `storekitlite_changes` in the store's schema, one row per
/// commit, written in the commit's transaction; a `NOTIFY` on the store's channel after commits is a hint to
/// followers (``PostgresCommitNotifier``).
///
/// Sequence numbers are handed out before commit, so on PostgreSQL they do not arrive in commit order: a follower
/// that read "everything after sequence 10" could later see 9 commit. Each entry therefore also records the ID of
/// the transaction that wrote it (`xact`), and a follower reads by transaction horizon instead: in one statement it
/// takes the oldest transaction still running (`pg_snapshot_xmin`), and reads the entries of transactions between
/// the previous horizon and that one. Every transaction below the horizon has ended, so those entries are final,
/// and the next read starts where this one stopped: nothing is read twice and nothing is missed. Entries of newer
/// transactions that already committed wait until the older ones end; the follower then looks again soon.
enum PostgresChangeLog {
    static let table = "storekitlite_changes"

    static func create(in schema: String) -> [String] {
        let log = PostgresSQL.table(table, in: schema)
        return [
            """
            CREATE TABLE IF NOT EXISTS \(log) (
                sequence bigserial PRIMARY KEY,
                xact bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
                origin uuid NOT NULL,
                committed_at timestamptz NOT NULL DEFAULT now(),
                payload bytea NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS \(PostgresSQL.quoted(table + "_xact")) ON \(log) (xact)",
        ]
    }

    /// The `LISTEN` channel of the store in `schema`: a fixed prefix and a hash of the schema's name, so that it
    /// fits PostgreSQL's 63-byte identifiers whatever the schema is called.
    static func channel(for schema: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in schema.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "storekitlite_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func exists(in schema: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var binder = PostgresBinder()
        let sql = "SELECT to_regclass(\(binder.bind(PostgresSQL.table(table, in: schema)))) IS NOT NULL"
        var exists = false
        for try await row in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binder.bindings),
            logger: logger
        ) {
            exists = try row.makeRandomAccess()[0].decode(Bool.self)
        }
        return exists
    }

    /// The statement that appends `batch`'s entry, to run in the batch's transaction. It notifies nobody: a
    /// `NOTIFY` in the transaction would serialise every commit on the server's notification lock
    /// (``PostgresCommitNotifier`` wakes followers after commits instead). Made before the transaction begins:
    /// encoding a large batch's entry takes a while.
    static func append(_ batch: ChangeBatch, origin: UUID, schema: String) -> PostgresQuery {
        var binder = PostgresBinder()
        let sql =
            "INSERT INTO \(PostgresSQL.table(table, in: schema)) (origin, payload) "
            + "VALUES (\(binder.bind(origin)), \(binder.bind(bytes: Data(ChangeLogEntry(batch).encoded()))))"
        return PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
    }

    /// Removes entries older than `retention`.
    static func prune(
        olderThan retention: Duration,
        schema: String,
        on pool: PostgresPool,
        logger: Logger
    )
        async throws
    {
        var binder = PostgresBinder()
        let (seconds, attoseconds) = retention.components
        let age = Double(seconds) + Double(attoseconds) / 1e18
        let sql =
            "DELETE FROM \(PostgresSQL.table(table, in: schema)) "
            + "WHERE committed_at < now() - make_interval(secs => \(binder.bind(age)))"
        let query = PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
        _ = try await pool.withConnection { connection in
            try await connection.query(query, logger: logger).consume()
        }
    }

    /// The horizon now: the oldest transaction still running (every older one has ended).
    static func horizon(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        var horizon: Int64 = 0
        let sql = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
            horizon = try row.makeRandomAccess()[0].decode(Int64.self)
        }
        return horizon
    }

    /// What one read of the log found.
    struct Read {
        /// The batches other backends committed, in sequence order.
        var batches: [ChangeBatch]
        /// Where the next read starts.
        var horizon: Int64
        /// Whether entries of transactions at or above the new horizon have committed already (the follower then
        /// looks again soon, without waiting for a notification).
        var pending: Bool
    }

    /// The batches of the transactions from `horizon` up to the current horizon, other than `origin`'s, with the
    /// rows of their inserted and updated records as stored now.
    static func read(
        after horizon: Int64,
        skipping origin: UUID,
        model: StoreModel,
        schema: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Read {
        let log = PostgresSQL.table(table, in: schema)
        var binder = PostgresBinder()
        let sql = """
            WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon),
                 p AS (SELECT EXISTS (SELECT 1 FROM \(log), h WHERE xact >= h.horizon) AS pending)
            SELECT h.horizon, p.pending, l.sequence, l.origin, l.payload
            FROM h CROSS JOIN p
            LEFT JOIN \(log) l ON l.xact >= \(binder.bind(horizon)) AND l.xact < h.horizon
            ORDER BY l.sequence
            """
        var next = horizon
        var pending = false
        var entries: [(Int64, ChangeLogEntry)] = []
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binder.bindings), logger: logger)
        for try await row in rows {
            let cells = row.makeRandomAccess()
            next = try cells[0].decode(Int64.self)
            pending = try cells[1].decode(Bool.self)
            guard cells[2].bytes != nil else { continue }
            let sequence = try cells[2].decode(Int64.self)
            guard try cells[3].decode(UUID.self) != origin else { continue }
            var payload = try cells[4].decode(ByteBuffer.self)
            let bytes = payload.readBytes(length: payload.readableBytes) ?? []
            entries.append((sequence, try ChangeLogEntry(decoding: bytes)))
        }
        var batches: [ChangeBatch] = []
        for (sequence, entry) in entries {
            var current: [String: [UUID: StoreRow]] = [:]
            for changes in entry.entities {
                guard let entity = model.entity(named: changes.entity) else { continue }
                let ids = changes.inserted + changes.updated
                guard !ids.isEmpty else { continue }
                let query = PostgresQueryBuilder.rows(ids: ids, of: entity, schema: schema)
                var byID = current[changes.entity] ?? [:]
                for row in try await PostgresReader.rows(try await connection.query(query, logger: logger), of: entity)
                {
                    byID[row.id] = row
                }
                current[changes.entity] = byID
            }
            batches.append(
                ChangeBatch.fromAnotherProcess(entry, sequence: sequence, model: model, currentRows: current)
            )
        }
        return Read(batches: batches, horizon: max(next, horizon), pending: pending)
    }
}

/// What a PostgreSQL backend's follower task holds: the pieces it needs, never the backend itself.
struct PostgresChangeFollower: Sendable {
    let pool: PostgresPool
    let schema: String
    let origin: UUID
    let model: StoreModel
    let pollInterval: Duration
    let broadcaster: CommitBroadcaster
    let status: Locked<ChangeFeedStatus>
    let logger: Logger?
    let queryLogger: Logger

    /// Follows the log from `horizon` until the task is cancelled, reconnecting after 0.1 s (doubling up to 5 s)
    /// whenever the connection is lost.
    func run(from horizon: Int64) async {
        let position = Locked(horizon)
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await follow(position: position)
            } catch {
                guard !Task.isCancelled else { return }
                let mapped = PostgresErrors.map(error, operation: "follow the change log")
                logger?.debug(
                    "store operation failed",
                    metadata: [
                        "storekitlite.operation": "follow the change log", "storekitlite.error": "\(mapped.code)",
                    ]
                )
            }
            status.withLock { $0.isConnected = false }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
    }

    /// Listens and reads until the connection fails or the task is cancelled.
    private func follow(position: Locked<Int64>) async throws {
        try await pool.withConnection { connection in
            try await connection.listen(on: PostgresChangeLog.channel(for: schema)) { notifications in
                let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in notifications { wake.yield() }
                        throw StoreError(.backend, detail: "follow the change log", reason: "the listener ended")
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: pollInterval)
                            wake.yield()
                        }
                    }
                    group.addTask {
                        var iterator = wakes.makeAsyncIterator()
                        repeat {
                            try await readAll(on: connection, position: position)
                        } while await iterator.next() != nil
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// Reads and delivers what the log holds past `position`; while newer entries wait for an older transaction
    /// to end, looks again after 5 ms, doubling, up to the poll interval.
    private func readAll(on connection: PostgresConnection, position: Locked<Int64>) async throws {
        var retry = Duration.milliseconds(5)
        while true {
            let read = try await PostgresChangeLog.read(
                after: position.withLock { $0 },
                skipping: origin,
                model: model,
                schema: schema,
                on: connection,
                logger: queryLogger
            )
            for batch in read.batches where !batch.isEmpty {
                broadcaster.publish(batch)
            }
            position.withLock { $0 = read.horizon }
            status.withLock { status in
                status.isConnected = true
                status.lastRead = Date()
                status.deliveredBatches += read.batches.count
                if let last = read.batches.last?.sequence { status.lastSequence = last }
            }
            guard read.pending, retry < pollInterval else { return }
            try await Task.sleep(for: retry)
            retry = retry * 2
        }
    }
}
