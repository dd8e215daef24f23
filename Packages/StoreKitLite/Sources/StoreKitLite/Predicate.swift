/// A type-safe condition on records of `Root`, built from key paths with operators.
///
/// ```swift
/// let recent: Predicate<Vehicle> = \.modelYear >= 2020 && .hasPrefix(\.plate, "AB") && !.isNull(\.mileage)
/// ```
///
/// Comparing with `nil` (`\.mileage == nil`, `\.mileage != nil`) means `IS NULL` / `IS NOT NULL`. Text operations
/// are case-sensitive and compare UTF-8 bytes, the same in memory and in SQL.
public struct Predicate<Root: Record>: Sendable {
    /// The type-erased expression backends translate.
    public let expression: PredicateExpression

    init(_ expression: PredicateExpression) {
        self.expression = expression
    }

    /// Matches every record.
    public static var all: Predicate { Predicate(.constant(true)) }
    /// Matches no record.
    public static var none: Predicate { Predicate(.constant(false)) }

    /// The column's value is `NULL`.
    public static func isNull<Value: StoreValueConvertible>(_ keyPath: KeyPath<Root, Value>) -> Predicate {
        Predicate(.isNull(reference(keyPath)))
    }

    /// The column's value is not `NULL`.
    public static func isNotNull<Value: StoreValueConvertible>(_ keyPath: KeyPath<Root, Value>) -> Predicate {
        Predicate(.isNotNull(reference(keyPath)))
    }

    /// The column's value is one of `values`.
    public static func isIn<Value: StoreValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        _ values: some Sequence<Value>
    ) -> Predicate {
        Predicate(.isIn(reference(keyPath), values.map(\.storeValue)))
    }

    /// The text column starts with `prefix` (case-sensitive).
    public static func hasPrefix(_ keyPath: KeyPath<Root, String>, _ prefix: String) -> Predicate {
        Predicate(.hasPrefix(reference(keyPath), prefix))
    }

    /// The optional text column starts with `prefix` (case-sensitive); never matches `NULL`.
    public static func hasPrefix(_ keyPath: KeyPath<Root, String?>, _ prefix: String) -> Predicate {
        Predicate(.hasPrefix(reference(keyPath), prefix))
    }

    /// The text column contains `text` (case-sensitive).
    public static func contains(_ keyPath: KeyPath<Root, String>, _ text: String) -> Predicate {
        Predicate(.contains(reference(keyPath), text))
    }

    /// The optional text column contains `text` (case-sensitive); never matches `NULL`.
    public static func contains(_ keyPath: KeyPath<Root, String?>, _ text: String) -> Predicate {
        Predicate(.contains(reference(keyPath), text))
    }

    /// A comparison of a column with a value; `nil` turns `==`/`!=` into `IS NULL`/`IS NOT NULL`.
    public static func compare<Value: StoreValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        _ comparison: PredicateExpression.Comparison,
        _ value: Value
    ) -> Predicate {
        let column = reference(keyPath)
        let stored = value.storeValue
        if stored.isNull {
            switch comparison {
            case .equal: return Predicate(.isNull(column))
            case .notEqual: return Predicate(.isNotNull(column))
            default: break
            }
        }
        return Predicate(.comparison(column, comparison, stored))
    }

    static func reference(_ keyPath: PartialKeyPath<Root>) -> ColumnReference {
        let schema = Root.schema
        guard let index = schema.columnIndex(of: keyPath) else {
            return ColumnReference(name: "\(keyPath)", index: -1)
        }
        return ColumnReference(name: schema.entity.columns[index].name, index: index)
    }
}
