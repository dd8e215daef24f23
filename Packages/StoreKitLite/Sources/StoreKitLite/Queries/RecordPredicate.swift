/// A type-safe condition on records of `Root`, built from key paths with operators.
///
/// ```swift
/// let recent: RecordPredicate<Vehicle> = \.modelYear >= 2020 && .hasPrefix(\.plate, "AB") && !.isNull(\.mileage)
/// ```
///
/// Comparing with `nil` (`\.mileage == nil`, `\.mileage != nil`) means `IS NULL` / `IS NOT NULL`. Text operations
/// are case-sensitive and compare UTF-8 bytes, the same in memory and in SQL.
public struct RecordPredicate<Root: Record>: Sendable {
    /// The type-erased expression backends translate.
    public let expression: StorePredicate

    init(_ expression: StorePredicate) {
        self.expression = expression
    }

    /// Matches every record.
    public static var all: RecordPredicate { RecordPredicate(.constant(true)) }
    /// Matches no record.
    public static var none: RecordPredicate { RecordPredicate(.constant(false)) }

    /// The column's value is `NULL`.
    public static func isNull<Value: StoreValueConvertible>(_ keyPath: KeyPath<Root, Value>) -> RecordPredicate {
        RecordPredicate(.isNull(reference(keyPath)))
    }

    /// The column's value is not `NULL`.
    public static func isNotNull<Value: StoreValueConvertible>(_ keyPath: KeyPath<Root, Value>) -> RecordPredicate {
        RecordPredicate(.isNotNull(reference(keyPath)))
    }

    /// The column's value is one of `values`.
    public static func isIn<Value: StoreValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        _ values: some Sequence<Value>
    ) -> RecordPredicate {
        RecordPredicate(.isIn(reference(keyPath), values.map(\.storeValue)))
    }

    /// The text column starts with `prefix` (case-sensitive).
    public static func hasPrefix(_ keyPath: KeyPath<Root, String>, _ prefix: String) -> RecordPredicate {
        RecordPredicate(.hasPrefix(reference(keyPath), prefix))
    }

    /// The optional text column starts with `prefix` (case-sensitive); never matches `NULL`.
    public static func hasPrefix(_ keyPath: KeyPath<Root, String?>, _ prefix: String) -> RecordPredicate {
        RecordPredicate(.hasPrefix(reference(keyPath), prefix))
    }

    /// The text column contains `text` (case-sensitive).
    public static func contains(_ keyPath: KeyPath<Root, String>, _ text: String) -> RecordPredicate {
        RecordPredicate(.contains(reference(keyPath), text))
    }

    /// The optional text column contains `text` (case-sensitive); never matches `NULL`.
    public static func contains(_ keyPath: KeyPath<Root, String?>, _ text: String) -> RecordPredicate {
        RecordPredicate(.contains(reference(keyPath), text))
    }

    /// A comparison of a column with a value; `nil` turns `==`/`!=` into `IS NULL`/`IS NOT NULL`.
    public static func compare<Value: StoreValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        _ comparison: StorePredicate.Comparison,
        _ value: Value
    ) -> RecordPredicate {
        let column = reference(keyPath)
        let stored = value.storeValue
        if stored.isNull {
            switch comparison {
            case .equal: return RecordPredicate(.isNull(column))
            case .notEqual: return RecordPredicate(.isNotNull(column))
            default: break
            }
        }
        return RecordPredicate(.comparison(column, comparison, stored))
    }

    static func reference(_ keyPath: PartialKeyPath<Root>) -> ColumnReference {
        let schema = Root.schema
        guard let index = schema.columnIndex(of: keyPath) else {
            return ColumnReference(name: "\(keyPath)", index: -1)
        }
        return ColumnReference(name: schema.entity.columns[index].name, index: index)
    }
}
