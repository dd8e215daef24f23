import Foundation
import GRDB
import GRDBSQLite
import StoreKitLite

/// Runs queries with cached prepared statements, reading columns through the raw handle.
enum SQLiteReader {
    static func rows(for query: SQLQuery, columnCount: Int, in db: Database) throws -> [StoreRow] {
        let handle = try db.cachedStatement(sql: query.sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        for (offset, value) in query.arguments.enumerated() {
            try SQLiteWriter.check(RawStatement.bind(value, at: Int32(offset + 1), to: handle), db)
        }
        var rows: [StoreRow] = []
        while true {
            let result = sqlite3_step(handle)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw SQLiteWriter.error(db, result) }
            rows.append(try row(from: handle, columnCount: columnCount))
        }
        return rows
    }

    /// Runs a query and hands its rows to `read` through a cursor over the statement (reset when `read` returns).
    static func read<Result>(
        _ query: SQLQuery,
        columnCount: Int,
        in db: Database,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws -> Result {
        let handle = try db.cachedStatement(sql: query.sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        for (offset, value) in query.arguments.enumerated() {
            try SQLiteWriter.check(RawStatement.bind(value, at: Int32(offset + 1), to: handle), db)
        }
        return try read(SQLiteCursor(statement: handle, db: db, columnCount: columnCount))
    }

    /// Runs `count` (a `SELECT COUNT(*)`), then subtracts the `excluded` rows that `matching` (a
    /// ``SQLQuery/matchingID(_:)``) finds, all in the caller's one read transaction.
    static func count(
        _ count: SQLQuery,
        excluding excluded: Set<UUID>,
        matching: SQLQuery,
        in db: Database
    ) throws -> Int {
        let handle = try db.cachedStatement(sql: count.sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        for (offset, value) in count.arguments.enumerated() {
            try SQLiteWriter.check(RawStatement.bind(value, at: Int32(offset + 1), to: handle), db)
        }
        let result = sqlite3_step(handle)
        guard result == SQLITE_ROW else { throw SQLiteWriter.error(db, result) }
        var total = Int(sqlite3_column_int64(handle, 0))
        guard !excluded.isEmpty else { return total }
        let check = try db.cachedStatement(sql: matching.sql).sqliteStatement
        defer { sqlite3_reset(check) }
        sqlite3_reset(check)
        sqlite3_clear_bindings(check)
        for (offset, value) in matching.arguments.enumerated() {
            try SQLiteWriter.check(RawStatement.bind(value, at: Int32(offset + 2), to: check), db)
        }
        for id in excluded {
            sqlite3_reset(check)
            try SQLiteWriter.check(RawStatement.bind(id: id, at: 1, to: check), db)
            let step = sqlite3_step(check)
            if step == SQLITE_ROW {
                total -= 1
            } else if step != SQLITE_DONE {
                throw SQLiteWriter.error(db, step)
            }
        }
        return total
    }

    /// The `SELECT … WHERE id = ?` text of each entity, built once per process instead of once per read.
    private static let selectByIDTexts = Locked<[EntityDescription: String]>([:])

    static func selectByID(_ entity: EntityDescription) -> String {
        if let text = selectByIDTexts.withLock({ $0[entity] }) { return text }
        let columns = (["id", "revision"] + entity.columns.map(\.name)).map(SQLSchema.quoted)
        let text = "SELECT \(columns.joined(separator: ", ")) FROM \(SQLSchema.quoted(entity.name)) WHERE id = ?"
        selectByIDTexts.withLock { $0[entity] = text }
        return text
    }

    static func rows(ids: [UUID], entity: EntityDescription, in db: Database) throws -> [StoreRow] {
        let handle = try db.cachedStatement(sql: selectByID(entity)).sqliteStatement
        defer { sqlite3_reset(handle) }
        var rows: [StoreRow] = []
        for id in ids {
            sqlite3_reset(handle)
            try SQLiteWriter.check(RawStatement.bind(id: id, at: 1, to: handle), db)
            let result = sqlite3_step(handle)
            if result == SQLITE_ROW {
                rows.append(try row(from: handle, columnCount: entity.columns.count))
            } else if result != SQLITE_DONE {
                throw SQLiteWriter.error(db, result)
            }
        }
        return rows
    }

    private static func row(from handle: OpaquePointer, columnCount: Int) throws -> StoreRow {
        guard let id = RawStatement.id(at: 0, of: handle) else {
            throw StoreError(.corruptValue, detail: "a stored ID is not 16 bytes")
        }
        var values: [StoreValue] = []
        values.reserveCapacity(columnCount)
        for index in 0..<columnCount {
            values.append(RawStatement.value(at: Int32(index + 2), of: handle))
        }
        return StoreRow(id: id, revision: sqlite3_column_int64(handle, 1), values: values)
    }
}
