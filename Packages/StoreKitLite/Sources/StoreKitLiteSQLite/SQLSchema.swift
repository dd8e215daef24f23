import Foundation
import StoreKitLite

/// DDL for migration steps. Names are quoted identifiers; column defaults are rendered as escaped literals
/// (SQLite does not accept parameters in DDL).
enum SQLSchema {
    static func quoted(_ identifier: String) -> String {
        // Names rarely hold a quote; skipping Foundation's replace then keeps per-query SQL text cheap.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func statement(for step: MigrationStep) -> String {
        switch step {
        case .createEntity(let entity):
            let columns =
                ["id BLOB PRIMARY KEY NOT NULL", "revision INTEGER NOT NULL"]
                + entity.columns.map { definition(of: $0) }
            return "CREATE TABLE \(quoted(entity.name)) (\(columns.joined(separator: ", "))) STRICT, WITHOUT ROWID"
        case .addColumn(let entity, let column, let defaultValue):
            return "ALTER TABLE \(quoted(entity)) ADD COLUMN \(definition(of: column)) DEFAULT \(literal(defaultValue))"
        case .createIndex(let name, let entity, let columns):
            return "CREATE INDEX \(quoted(name)) ON \(quoted(entity)) (\(columns.map(quoted).joined(separator: ", ")))"
        case .createUniqueIndex(let name, let entity, let columns):
            return "CREATE UNIQUE INDEX \(quoted(name)) ON \(quoted(entity)) "
                + "(\(columns.map(quoted).joined(separator: ", ")))"
        }
    }

    static func definition(of column: ColumnDescription) -> String {
        let type =
            switch column.type {
            case .integer: "INTEGER"
            case .real: "REAL"
            case .text: "TEXT"
            case .blob: "BLOB"
            }
        return "\(quoted(column.name)) \(type)" + (column.isNullable ? "" : " NOT NULL")
    }

    static func literal(_ value: StoreValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)" : "NULL"
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
