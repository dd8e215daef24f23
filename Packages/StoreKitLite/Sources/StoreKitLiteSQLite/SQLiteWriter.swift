import Foundation
import GRDB
import GRDBSQLite
import StoreKitLite

/// Writes a ``StoreKitLite/ChangeBatch`` inside one GRDB write transaction, with cached prepared statements bound
/// through the raw handle. Conflicts are collected over the whole batch and thrown at the end, which rolls the
/// transaction back.
enum SQLiteWriter {
    /// The `INSERT` text of each entity, built once per backend instead of once per commit.
    final class InsertTexts: Sendable {
        private let texts = Locked<[EntityDescription: String]>([:])

        func text(for entity: EntityDescription) -> String {
            if let text = texts.withLock({ $0[entity] }) { return text }
            let names = (["id", "revision"] + entity.columns.map(\.name)).map(SQLSchema.quoted)
            let placeholders = ["?", "1"] + Array(repeating: "?", count: entity.columns.count)
            let text =
                "INSERT INTO \(SQLSchema.quoted(entity.name)) (\(names.joined(separator: ", "))) "
                + "VALUES (\(placeholders.joined(separator: ", ")))"
            texts.withLock { $0[entity] = text }
            return text
        }
    }

    static func apply(
        _ batch: ChangeBatch,
        in db: Database,
        insertTexts: InsertTexts,
        log: SQLiteChangeLog.Write? = nil
    ) throws {
        var conflicts: [UUID] = []
        for changes in batch.entities {
            if !changes.inserts.isEmpty {
                try insert(changes.inserts, sql: insertTexts.text(for: changes.entity), in: db)
            }
            for update in changes.updates where !update.changedColumns.isEmpty {
                if try !self.update(update, in: changes.entity, db: db), update.checksRevision {
                    conflicts.append(update.row.id)
                }
            }
            for delete in changes.deletes {
                if try !self.delete(delete, from: changes.entity, db: db), delete.checksRevision {
                    conflicts.append(delete.row.id)
                }
            }
        }
        if !conflicts.isEmpty {
            throw StoreError(.conflict, entity: batch.entities.first?.entity.name, records: conflicts)
        }
        if let log {
            try SQLiteChangeLog.append(batch, log, in: db)
        }
    }

    private static func insert(_ rows: [StoreRow], sql: String, in db: Database) throws {
        let handle = try db.cachedStatement(sql: sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        for row in rows {
            sqlite3_reset(handle)
            try check(RawStatement.bind(id: row.id, at: 1, to: handle), db)
            try row.values.withUnsafeBufferPointer { values in
                var index: Int32 = 2
                for value in values {
                    try check(RawStatement.bind(value, at: index, to: handle), db)
                    index += 1
                }
            }
            let result = sqlite3_step(handle)
            guard result == SQLITE_DONE else { throw error(db, result) }
        }
    }

    /// Writes the changed columns; returns whether a row was written.
    private static func update(_ update: RowUpdate, in entity: EntityDescription, db: Database) throws -> Bool {
        let assignments = update.changedColumns.map { "\(SQLSchema.quoted(entity.columns[$0].name)) = ?" }
        let sql =
            "UPDATE \(SQLSchema.quoted(entity.name)) SET \(assignments.joined(separator: ", ")), "
            + "revision = revision + 1 WHERE id = ?" + (update.checksRevision ? " AND revision = ?" : "")
        let handle = try db.cachedStatement(sql: sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        var index: Int32 = 1
        for column in update.changedColumns {
            try check(RawStatement.bind(update.row.values[column], at: index, to: handle), db)
            index += 1
        }
        try check(RawStatement.bind(id: update.row.id, at: index, to: handle), db)
        if update.checksRevision {
            try check(sqlite3_bind_int64(handle, index + 1, update.row.revision), db)
        }
        let result = sqlite3_step(handle)
        guard result == SQLITE_DONE else { throw error(db, result) }
        return sqlite3_changes(db.sqliteConnection) > 0
    }

    /// Deletes a row; returns whether one was deleted.
    private static func delete(_ delete: RowDelete, from entity: EntityDescription, db: Database) throws -> Bool {
        let sql =
            "DELETE FROM \(SQLSchema.quoted(entity.name)) WHERE id = ?"
            + (delete.checksRevision ? " AND revision = ?" : "")
        let handle = try db.cachedStatement(sql: sql).sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        try check(RawStatement.bind(id: delete.row.id, at: 1, to: handle), db)
        if delete.checksRevision {
            try check(sqlite3_bind_int64(handle, 2, delete.row.revision), db)
        }
        let result = sqlite3_step(handle)
        guard result == SQLITE_DONE else { throw error(db, result) }
        return sqlite3_changes(db.sqliteConnection) > 0
    }

    static func check(_ result: Int32, _ db: Database) throws {
        guard result == SQLITE_OK else { throw error(db, result) }
    }

    static func error(_ db: Database, _ result: Int32) -> DatabaseError {
        let extended = sqlite3_extended_errcode(db.sqliteConnection)
        let message = sqlite3_errmsg(db.sqliteConnection).map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: extended != 0 ? extended : result), message: message)
    }
}
