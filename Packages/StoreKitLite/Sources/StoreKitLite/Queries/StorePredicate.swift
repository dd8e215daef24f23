/// The type-erased form of a ``RecordPredicate``: what a backend translates (to SQL with bound parameters) and what
/// StoreKitLite evaluates in memory over unsaved changes.
///
/// Both evaluations follow SQL's three-valued logic: a comparison involving `NULL` is unknown, `NOT unknown` is
/// unknown, `AND`/`OR` combine as in SQL, and a row matches only when the whole predicate is true.
public indirect enum StorePredicate: Sendable, Hashable {
    /// Always true or always false.
    case constant(Bool)
    /// `column <op> value`; unknown when either side is `NULL`.
    case comparison(ColumnReference, Comparison, StoreValue)
    /// `column IS NULL`.
    case isNull(ColumnReference)
    /// `column IS NOT NULL`.
    case isNotNull(ColumnReference)
    /// `column IN (values…)`; false for an empty list.
    case isIn(ColumnReference, [StoreValue])
    /// Text starting with the given text, byte for byte (case-sensitive); the empty prefix matches any text.
    case hasPrefix(ColumnReference, String)
    /// Text containing the given text, byte for byte (case-sensitive); the empty text is contained in any text.
    case contains(ColumnReference, String)
    /// All of the operands; true for none.
    case and([StorePredicate])
    /// Any of the operands; false for none.
    case or([StorePredicate])
    /// The negation of the operand.
    case not(StorePredicate)

    /// The six comparison operators.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    /// Every column the expression refers to.
    public var columns: [ColumnReference] {
        switch self {
        case .constant: []
        case .comparison(let column, _, _), .isNull(let column), .isNotNull(let column), .isIn(let column, _),
            .hasPrefix(let column, _), .contains(let column, _):
            [column]
        case .and(let operands), .or(let operands): operands.flatMap(\.columns)
        case .not(let operand): operand.columns
        }
    }
}
