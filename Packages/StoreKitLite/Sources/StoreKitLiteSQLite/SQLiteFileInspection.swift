import Foundation
import GRDBSQLite
import StoreKitLite

/// What an existing store file says about itself, read without writing to it or creating anything beside it, so
/// that a file the backend is going to refuse (not a database, corrupt, or from a newer schema) is refused before
/// the store is opened for writing.
enum SQLiteFileInspection {
    /// The first 16 bytes of every SQLite database file.
    private static let header = Array("SQLite format 3\u{0}".utf8)

    /// The names of the migrations the file at `path` has applied, in order; `nil` when there is no file yet, or
    /// an empty one (SQLite makes a new database of it).
    ///
    /// The file is opened read-only with SQLite's `immutable` flag, which reads the database file alone, without
    /// locks and without a `-shm` file. When a non-empty `-wal` file lies beside it (a writer is running, or one
    /// stopped without closing), it is opened read-only with locks instead, so that committed transactions still
    /// in the log are read too.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/notADatabase`` for a file that is not an SQLite database or is
    ///   corrupt, ``StoreKitLite/StoreError/Code/cannotOpen`` when it cannot be read.
    static func appliedMigrations(atPath path: String) throws(StoreError) -> [String]? {
        guard let file = FileHandle(forReadingAtPath: path) else {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            throw StoreError(.cannotOpen, detail: "inspect", reason: "the file cannot be read")
        }
        let start = (try? file.read(upToCount: 100)) ?? Data()
        try? file.close()
        if start.isEmpty { return nil }
        guard start.count == 100, start.prefix(header.count).elementsEqual(header) else {
            throw StoreError(
                .notADatabase,
                detail: "inspect",
                reason: "the file does not start with an SQLite header"
            )
        }
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let uri = "file:" + encoded + (walSize > 0 ? "?mode=ro" : "?immutable=1")
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard opened == SQLITE_OK, let connection else {
            throw failure(opened, connection)
        }
        let exists = try strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'storekitlite_migrations'",
            in: connection
        )
        guard !exists.isEmpty else { return [] }
        return try strings("SELECT name FROM storekitlite_migrations ORDER BY position", in: connection)
    }

    /// The first column of every row `sql` returns, as text.
    private static func strings(_ sql: String, in connection: OpaquePointer) throws(StoreError) -> [String] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared, connection) }
        var result: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return result }
            guard step == SQLITE_ROW else { throw failure(step, connection) }
            result.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    private static func failure(_ code: Int32, _ connection: OpaquePointer?) -> StoreError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
        switch code & 0xFF {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return StoreError(.notADatabase, detail: "inspect", reason: message)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return StoreError(.cannotOpen, detail: "inspect", reason: message)
        default:
            return StoreError(.backend, detail: "inspect", reason: message)
        }
    }
}
