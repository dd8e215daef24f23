public import Foundation
import GRDB
public import StoreKitLite

/// Reads: on GRDB's reader pool for the `async` forms (the task suspends), and on the calling thread, on read-only
/// connections of the backend's own, for the ``StoreKitLite/SynchronousStoreBackend`` forms.
extension SQLiteBackend {
    // MARK: - Async reads

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

    // MARK: - Reads on the calling thread

    /// Runs a query on the calling thread, as one statement with no transaction around it (SQLite runs a statement
    /// against one snapshot by itself), and hands its rows to `read` in the caller's isolation.
    public func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try query.validate()
        let select = SQLQuery(query)
        let columnCount = query.entity.columns.count
        return try readOnCallingThread(singleStatement: true) { db in
            try SQLiteReader.read(select, columnCount: columnCount, in: db, reading: read)
        }
    }

    /// Fetches rows by ID on the calling thread: one ID is one statement; several are read in one read
    /// transaction, so that they see one snapshot.
    public func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow] {
        guard !ids.isEmpty else { return [] }
        return try readOnCallingThread(singleStatement: ids.count == 1) { db in
            try SQLiteReader.rows(ids: ids, entity: entity, in: db)
        }
    }

    /// Counts on the calling thread with `SELECT COUNT(*)`; when rows are excluded, their checks run in the same
    /// read transaction.
    public func countOnCallingThread(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int {
        try query.validate()
        let count = SQLQuery.count(query)
        let matching = SQLQuery.matchingID(query)
        let skipped = Set(excluded)
        let total = try readOnCallingThread(singleStatement: skipped.isEmpty) { db in
            try SQLiteReader.count(count, excluding: skipped, matching: matching, in: db)
        }
        return query.slicedCount(total)
    }

    /// Runs `body` on the calling thread.
    ///
    /// For a file opened as a pool, `body` runs on a read-only connection of the backend's own: taken from a list of
    /// idle ones under a lock held for a pop, or opened when none is idle (so a read never waits for another read;
    /// in WAL mode it never waits for a write either), and put back afterwards. With `singleStatement`, `body` runs
    /// one statement, which SQLite already runs against one snapshot, so no `BEGIN`/`COMMIT` pair is added (a third
    /// of a point read's SQLite work). The connections are not GRDB's reader pool, whose bookkeeping goes through a
    /// dispatch queue (a barrier to take a reader and one to give it back) where two reads that meet wait on each
    /// other through thread wake-ups.
    ///
    /// A store with one connection (in memory, or a file in SQLite's `immutable` mode) reads on it with GRDB's
    /// synchronous read, which waits for a write in progress on that connection.
    func readOnCallingThread<T>(singleStatement: Bool, _ body: (Database) throws -> T) throws(StoreError) -> T {
        let database = try database()
        do {
            guard case .file(let path) = location, database is DatabasePool else {
                return try database.read(body)
            }
            let reader = try callingThreadReaders.withLock { $0.idle.popLast() } ?? Self.openReader(path: path)
            defer {
                callingThreadReaders.withLock { readers in
                    if !readers.closed, readers.idle.count < Self.maximumIdleCallingThreadReaders {
                        readers.idle.append(reader)
                    }
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
}
