import Foundation
import GRDB
import GRDBSQLite
import StoreKitLite

/// A ``StoreKitLite/StoreCursor`` over a stepping SQLite statement whose result columns are the ID, the revision and
/// the entity's columns: values are read from the statement as records are filled in, with nothing in between.
final class SQLiteCursor: StoreCursor {
    let statement: OpaquePointer
    let db: Database
    let columnCount: Int

    init(statement: OpaquePointer, db: Database, columnCount: Int) {
        self.statement = statement
        self.db = db
        self.columnCount = columnCount
    }

    func next() throws(StoreError) -> UUID? {
        let result = sqlite3_step(statement)
        if result == SQLITE_DONE { return nil }
        guard result == SQLITE_ROW else {
            throw SQLiteErrors.map(SQLiteWriter.error(db, result), operation: "read")
        }
        guard let id = RawStatement.id(at: 0, of: statement) else {
            throw StoreError(.corruptValue, detail: "a stored ID is not 16 bytes")
        }
        return id
    }

    var revision: Int64 { sqlite3_column_int64(statement, 1) }

    func type(at column: Int) -> ColumnType? {
        switch sqlite3_column_type(statement, Int32(column + 2)) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: nil
        }
    }

    func integer(at column: Int) -> Int64 {
        sqlite3_column_int64(statement, Int32(column + 2))
    }

    func real(at column: Int) -> Double {
        sqlite3_column_double(statement, Int32(column + 2))
    }

    func text(at column: Int) -> String {
        RawStatement.text(at: Int32(column + 2), of: statement)
    }

    func blob(at column: Int) -> Data {
        RawStatement.blob(at: Int32(column + 2), of: statement)
    }

    func value(at column: Int) -> StoreValue {
        RawStatement.value(at: Int32(column + 2), of: statement)
    }
}
