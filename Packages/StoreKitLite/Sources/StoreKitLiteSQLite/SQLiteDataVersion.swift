import GRDBSQLite
import StoreKitLite

/// A read-only connection of its own on a store file, reading SQLite's `data_version`: a number that changes once
/// another connection (this backend's writer, or any connection of another process) has committed to the file
/// since the last reading. It never writes and holds no transaction between readings, so it delays neither
/// writers nor checkpoints.
///
/// Not thread-safe: ``SQLiteBackend`` uses it under a lock.
final class SQLiteDataVersion {
    private let connection: OpaquePointer
    private let statement: OpaquePointer

    init(path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let connection = opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite could not allocate a connection"
            sqlite3_close_v2(opened)
            throw StoreError(.cannotOpen, detail: "open a connection to read the data version", reason: reason)
        }
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        var prepared: OpaquePointer?
        guard
            sqlite3_prepare_v3(connection, "PRAGMA data_version", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
                == SQLITE_OK,
            let statement = prepared
        else {
            let reason = String(cString: sqlite3_errmsg(connection))
            sqlite3_close_v2(connection)
            throw StoreError(.backend, detail: "prepare PRAGMA data_version", reason: reason)
        }
        self.connection = connection
        self.statement = statement
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(connection)
    }

    /// The current data version.
    func read() throws(StoreError) -> Int64 {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            throw StoreError(
                .backend,
                detail: "read PRAGMA data_version",
                reason: String(cString: sqlite3_errmsg(connection))
            )
        }
        return sqlite3_column_int64(statement, 0)
    }
}
