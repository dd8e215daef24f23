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
            sql += " WHERE " + Self.condition(query.predicate, entity: query.entity, &arguments)
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
            sql += " WHERE " + condition(query.predicate, entity: query.entity, &arguments)
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    /// `SELECT 1` when the row whose ID is bound first (at index 1) exists and matches the query's predicate; the
    /// predicate's arguments follow the ID.
    static func matchingID(_ query: RowQuery) -> SQLQuery {
        var arguments: [StoreValue] = []
        var sql = "SELECT 1 FROM \(SQLSchema.quoted(query.entity.name)) WHERE id = ?"
        if query.predicate != .constant(true) {
            sql += " AND " + condition(query.predicate, entity: query.entity, &arguments)
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    /// The SQL of `expression` over `entity`'s table. Operands of another storage class than their column are
    /// decided by ``StoreKitLite/StoreOperand`` rather than left to SQLite, which would convert them to the
    /// column's affinity (`score = '1'` would match 1) where the in-memory evaluation orders storage classes.
    static func condition(
        _ expression: StorePredicate,
        entity: EntityDescription,
        _ arguments: inout [StoreValue]
    ) -> String {
        switch expression {
        case .constant(let value):
            return value ? "1" : "0"
        case .comparison(let column, let comparison, let value):
            let name = SQLSchema.quoted(column.name)
            switch StoreOperand(value, comparedWith: entity.columns[column.index].type, by: comparison) {
            case .unknown:
                return "NULL"
            case .decided(let result):
                return result ? decidedTrue(name) : decidedFalse(name)
            case .compare(let comparison, let operand):
                arguments.append(operand)
                return "\(name) \(comparison.rawValue) ?"
            }
        case .isNull(let column):
            return "\(SQLSchema.quoted(column.name)) IS NULL"
        case .isNotNull(let column):
            return "\(SQLSchema.quoted(column.name)) IS NOT NULL"
        case .isIn(let column, let values):
            guard !values.isEmpty else { return "0" }
            let name = SQLSchema.quoted(column.name)
            let (operands, holdsNull) = StoreOperand.membership(values, comparedWith: entity.columns[column.index].type)
            // Nothing can be equal: unknown when the list holds NULL, otherwise false (unknown for NULL).
            if operands.isEmpty { return holdsNull ? "NULL" : decidedFalse(name) }
            arguments += operands
            let placeholders = Array(repeating: "?", count: operands.count) + (holdsNull ? ["NULL"] : [])
            return "\(name) IN (\(placeholders.joined(separator: ", ")))"
        case .hasPrefix(let column, let prefix):
            let name = SQLSchema.quoted(column.name)
            // `instr` would read a number or bytes as text; the in-memory evaluation matches text only.
            guard entity.columns[column.index].type == .text else { return decidedFalse(name) }
            arguments.append(.text(prefix))
            return "instr(\(name), ?) = 1"
        case .contains(let column, let text):
            let name = SQLSchema.quoted(column.name)
            guard entity.columns[column.index].type == .text else { return decidedFalse(name) }
            arguments.append(.text(text))
            return "instr(\(name), ?) > 0"
        case .and(let operands):
            guard !operands.isEmpty else { return "1" }
            return "(" + operands.map { condition($0, entity: entity, &arguments) }.joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return "0" }
            return "(" + operands.map { condition($0, entity: entity, &arguments) }.joined(separator: " OR ") + ")"
        case .not(let operand):
            return "NOT (" + condition(operand, entity: entity, &arguments) + ")"
        }
    }

    /// True for a column that is not `NULL`, `NULL` for one that is: a comparison decided to be true.
    private static func decidedTrue(_ column: String) -> String {
        "(\(column) IS NOT NULL OR NULL)"
    }

    /// False for a column that is not `NULL`, `NULL` for one that is: a comparison decided to be false.
    private static func decidedFalse(_ column: String) -> String {
        "(\(column) IS NULL AND NULL)"
    }
}
