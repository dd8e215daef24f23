import Foundation
import PostgresNIO
import StoreKitLite

/// Names, DDL and literals in PostgreSQL's dialect. Every stored value goes through ``PostgresBinder`` as a bound
/// parameter; the only values spelled into SQL text are the defaults of added columns, because PostgreSQL (like
/// SQLite) accepts no parameters in DDL.
enum PostgresSQL {
    /// The table that records applied migrations, one per schema.
    static let migrationsTable = "storekitlite_migrations"

    static func quoted(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// An identifier with its double quotes doubled, to be put between double quotes.
    static func escapedInsideQuotes(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return identifier }
        return identifier.replacingOccurrences(of: "\"", with: "\"\"")
    }

    /// `"schema"."table"`.
    static func table(_ name: String, in schema: String) -> String {
        quoted(schema) + "." + quoted(name)
    }

    /// The column type. Text columns use the `C` collation, so that text compares and sorts byte by byte as UTF-8
    /// (the order of ``StoreKitLite/StoreValue/order(_:_:)``), whatever the database's default collation is.
    static func type(of column: ColumnType) -> String {
        switch column {
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text COLLATE \"C\""
        case .blob: "bytea"
        }
    }

    static func definition(of column: ColumnDescription) -> String {
        "\(quoted(column.name)) \(type(of: column.type))" + (column.isNullable ? "" : " NOT NULL")
    }

    static func statement(for step: MigrationStep, in schema: String) -> String {
        switch step {
        case .createEntity(let entity):
            let columns =
                ["id uuid PRIMARY KEY NOT NULL", "revision bigint NOT NULL"] + entity.columns.map(definition(of:))
            return "CREATE TABLE \(table(entity.name, in: schema)) (\(columns.joined(separator: ", ")))"
        case .addColumn(let entity, let column, let defaultValue):
            return "ALTER TABLE \(table(entity, in: schema)) ADD COLUMN \(definition(of: column)) "
                + "DEFAULT \(literal(defaultValue, as: column.type))"
        case .createIndex(let name, let entity, let columns):
            return "CREATE INDEX \(quoted(name)) ON \(table(entity, in: schema)) "
                + "(\(columns.map(quoted).joined(separator: ", ")))"
        case .createUniqueIndex(let name, let entity, let columns):
            return "CREATE UNIQUE INDEX \(quoted(name)) ON \(table(entity, in: schema)) "
                + "(\(columns.map(quoted).joined(separator: ", ")))"
        }
    }

    /// A default value as an SQL literal of the column's type. Text is an escape string (`E'…'`), so the meaning
    /// of a backslash does not depend on `standard_conforming_strings`; bytes are decoded from hex.
    static func literal(_ value: StoreValue, as type: ColumnType) -> String {
        switch value {
        case .null:
            return "NULL"
        case .integer(let integer):
            return type == .real ? "\(Double(integer))::double precision" : String(integer)
        case .real(let real):
            return real.isFinite ? "'\(real)'::double precision" : "NULL"
        case .text(let text):
            var escaped = "E'"
            for character in text.unicodeScalars {
                switch character {
                case "'": escaped += "''"
                case "\\": escaped += "\\\\"
                default: escaped.unicodeScalars.append(character)
                }
            }
            return escaped + "'"
        case .blob(let bytes):
            return "decode('" + bytes.map { String(format: "%02x", $0) }.joined() + "', 'hex')"
        }
    }
}
