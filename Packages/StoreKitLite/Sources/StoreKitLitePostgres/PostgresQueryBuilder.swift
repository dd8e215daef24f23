import Foundation
import PostgresNIO
import StoreKitLite

/// SQL for ``StoreKitLite/RowQuery``s, written so that PostgreSQL gives exactly the result of the in-memory
/// evaluation (``StoreKitLite/RowQuery/apply(to:)``), which defines it:
///
/// - text compares and sorts with the `C` collation (byte by byte as UTF-8, case-sensitive);
/// - `NULL` sorts first ascending and last descending (`NULLS FIRST` / `NULLS LAST`; PostgreSQL's default is the
///   opposite);
/// - prefix and substring tests are `starts_with` and `strpos`, never `LIKE`, so `%`, `_` and `\` need no escaping;
/// - a value of another storage class than its column compares as ``StoreKitLite/StoreValue/order(_:_:)`` says
///   (numbers before text before bytes; integers and reals by exact value), decided here where PostgreSQL would
///   convert or refuse; a comparison decided here still gives `NULL` for a `NULL` column, so `NOT` keeps SQL's
///   three-valued logic;
/// - ties are broken by ID (`uuid` sorts by its bytes, like the in-memory order).
enum PostgresQueryBuilder {
    static func columnList(_ entity: EntityDescription) -> String {
        (["id", "revision"] + entity.columns.map(\.name)).map(PostgresSQL.quoted).joined(separator: ", ")
    }

    /// The `SELECT` of a query's rows, in order, sliced.
    static func select(_ query: RowQuery, schema: String) -> PostgresQuery {
        var binder = PostgresBinder()
        let entity = query.entity
        var sql = "SELECT \(columnList(entity)) FROM \(PostgresSQL.table(entity.name, in: schema))"
        if query.predicate != .constant(true) {
            sql += " WHERE " + condition(query.predicate, entity: entity, &binder)
        }
        let order = query.sortKeys.map { key in
            // A column that cannot hold NULL sorts without a NULLS clause: the order is the same, and it is the
            // order of a plain index on the column (`ASC NULLS LAST`), which PostgreSQL then reads in order instead
            // of sorting every matching row (a page of 50 by a required column reads 51 index entries, not the
            // table).
            guard entity.columns[key.column.index].isNullable else {
                return column(key.column, of: entity) + (key.ascending ? " ASC" : " DESC")
            }
            return column(key.column, of: entity) + (key.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
        }
        sql += " ORDER BY " + (order + ["id ASC"]).joined(separator: ", ")
        if let limit = query.limit {
            sql += " LIMIT " + binder.bind(Int64(max(0, limit)))
        }
        if query.offset > 0 {
            sql += " OFFSET " + binder.bind(Int64(query.offset))
        }
        return PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
    }

    /// `SELECT COUNT(*)` of the rows matching the predicate, leaving out the rows with the given IDs.
    static func count(_ query: RowQuery, excluding excluded: [UUID], schema: String) -> PostgresQuery {
        var binder = PostgresBinder()
        let entity = query.entity
        var conditions: [String] = []
        if query.predicate != .constant(true) {
            conditions.append(condition(query.predicate, entity: entity, &binder))
        }
        if !excluded.isEmpty {
            conditions.append("NOT (id = ANY(\(binder.bind(excluded))))")
        }
        var sql = "SELECT COUNT(*) FROM \(PostgresSQL.table(entity.name, in: schema))"
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.joined(separator: " AND ")
        }
        return PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
    }

    /// The rows with the given IDs.
    static func rows(ids: [UUID], of entity: EntityDescription, schema: String) -> PostgresQuery {
        var binder = PostgresBinder()
        let sql =
            "SELECT \(columnList(entity)) FROM \(PostgresSQL.table(entity.name, in: schema)) "
            + "WHERE id = ANY(\(binder.bind(ids)))"
        return PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
    }

    /// A column reference; text columns name their collation explicitly.
    private static func column(_ reference: ColumnReference, of entity: EntityDescription) -> String {
        let name = PostgresSQL.quoted(reference.name)
        return entity.columns[reference.index].type == .text ? name + " COLLATE \"C\"" : name
    }

    /// True for a column that is not `NULL`, `NULL` for one that is: a comparison decided to be true.
    private static func decidedTrue(_ column: String) -> String {
        "(\(column) IS NOT NULL OR NULL)"
    }

    /// False for a column that is not `NULL`, `NULL` for one that is: a comparison decided to be false.
    /// The placeholder of an operand ``StoreKitLite/StoreOperand`` chose: a value of the column's own type.
    private static func bind(_ operand: StoreValue, _ binder: inout PostgresBinder) -> String {
        switch operand {
        case .integer(let value): binder.bind(value)
        case .real(let value): binder.bind(value)
        case .text(let value): binder.bind(value)
        case .blob(let value): binder.bind(bytes: value)
        case .null: "NULL"
        }
    }

    private static func decidedFalse(_ column: String) -> String {
        "(\(column) IS NULL AND NULL)"
    }

    static func condition(
        _ predicate: StorePredicate,
        entity: EntityDescription,
        _ binder: inout PostgresBinder
    )
        -> String
    {
        switch predicate {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .comparison(let reference, let comparison, let value):
            let name = column(reference, of: entity)
            switch StoreOperand(value, comparedWith: entity.columns[reference.index].type, by: comparison) {
            case .unknown:
                return "NULL::boolean"
            case .decided(let result):
                return result ? decidedTrue(name) : decidedFalse(name)
            case .compare(let comparison, let operand):
                return "\(name) \(comparison.rawValue) \(bind(operand, &binder))"
            }
        case .isNull(let reference):
            return "\(PostgresSQL.quoted(reference.name)) IS NULL"
        case .isNotNull(let reference):
            return "\(PostgresSQL.quoted(reference.name)) IS NOT NULL"
        case .isIn(let reference, let values):
            guard !values.isEmpty else { return "FALSE" }
            let name = column(reference, of: entity)
            let (operands, holdsNull) = StoreOperand.membership(
                values,
                comparedWith: entity.columns[reference.index].type
            )
            // Nothing can be equal: unknown when the list holds NULL, otherwise false (unknown for NULL).
            if operands.isEmpty { return holdsNull ? "NULL::boolean" : decidedFalse(name) }
            let placeholders = operands.map { bind($0, &binder) } + (holdsNull ? ["NULL"] : [])
            return "\(name) IN (\(placeholders.joined(separator: ", ")))"
        case .hasPrefix(let reference, let prefix):
            let name = PostgresSQL.quoted(reference.name)
            guard entity.columns[reference.index].type == .text else { return decidedFalse(name) }
            return "starts_with(\(name), \(binder.bind(prefix)))"
        case .contains(let reference, let text):
            let name = PostgresSQL.quoted(reference.name)
            guard entity.columns[reference.index].type == .text else { return decidedFalse(name) }
            return "strpos(\(name), \(binder.bind(text))) > 0"
        case .and(let operands):
            guard !operands.isEmpty else { return "TRUE" }
            return "(" + operands.map { condition($0, entity: entity, &binder) }.joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return "FALSE" }
            return "(" + operands.map { condition($0, entity: entity, &binder) }.joined(separator: " OR ") + ")"
        case .not(let operand):
            return "NOT (" + condition(operand, entity: entity, &binder) + ")"
        }
    }
}
