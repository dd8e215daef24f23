import StoreKitLite

/// A `SELECT` for a ``StoreKitLite/RowQuery``: SQL text with `?` placeholders and the values to bind, in order.
struct SQLQuery: Sendable {
    let sql: String
    let arguments: [StoreValue]

    init(_ query: RowQuery) {
        var arguments: [StoreValue] = []
        let columns = (["id", "revision"] + query.entity.columns.map(\.name)).map(SQLSchema.quoted)
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(SQLSchema.quoted(query.entity.name))"
        if query.predicate != .constant(true) {
            sql += " WHERE " + Self.condition(query.predicate, &arguments)
        }
        let order = query.sortKeys.map { SQLSchema.quoted($0.column.name) + ($0.ascending ? " ASC" : " DESC") }
        sql += " ORDER BY " + (order + ["id ASC"]).joined(separator: ", ")
        if query.limit != nil || query.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(.integer(Int64(query.limit ?? -1)))
            arguments.append(.integer(Int64(query.offset)))
        }
        self.sql = sql
        self.arguments = arguments
    }

    private init(sql: String, arguments: [StoreValue]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// `SELECT COUNT(*)` of the rows matching the query's predicate (sort keys, limit and offset ignored).
    static func count(_ query: RowQuery) -> SQLQuery {
        var arguments: [StoreValue] = []
        var sql = "SELECT COUNT(*) FROM \(SQLSchema.quoted(query.entity.name))"
        if query.predicate != .constant(true) {
            sql += " WHERE " + condition(query.predicate, &arguments)
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    /// `SELECT 1` when the row whose ID is bound first (at index 1) exists and matches the query's predicate; the
    /// predicate's arguments follow the ID.
    static func matchingID(_ query: RowQuery) -> SQLQuery {
        var arguments: [StoreValue] = []
        var sql = "SELECT 1 FROM \(SQLSchema.quoted(query.entity.name)) WHERE id = ?"
        if query.predicate != .constant(true) {
            sql += " AND " + condition(query.predicate, &arguments)
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    static func condition(_ expression: StorePredicate, _ arguments: inout [StoreValue]) -> String {
        switch expression {
        case .constant(let value):
            return value ? "1" : "0"
        case .comparison(let column, let comparison, let value):
            arguments.append(value)
            return "\(SQLSchema.quoted(column.name)) \(comparison.rawValue) ?"
        case .isNull(let column):
            return "\(SQLSchema.quoted(column.name)) IS NULL"
        case .isNotNull(let column):
            return "\(SQLSchema.quoted(column.name)) IS NOT NULL"
        case .isIn(let column, let values):
            guard !values.isEmpty else { return "0" }
            arguments += values
            return
                "\(SQLSchema.quoted(column.name)) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))"
        case .hasPrefix(let column, let prefix):
            arguments.append(.text(prefix))
            return "instr(\(SQLSchema.quoted(column.name)), ?) = 1"
        case .contains(let column, let text):
            arguments.append(.text(text))
            return "instr(\(SQLSchema.quoted(column.name)), ?) > 0"
        case .and(let operands):
            guard !operands.isEmpty else { return "1" }
            return "(" + operands.map { condition($0, &arguments) }.joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return "0" }
            return "(" + operands.map { condition($0, &arguments) }.joined(separator: " OR ") + ")"
        case .not(let operand):
            return "NOT (" + condition(operand, &arguments) + ")"
        }
    }
}
