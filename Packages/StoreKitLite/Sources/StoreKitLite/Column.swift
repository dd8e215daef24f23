/// One stored property of a record type: a name and a key path, type-checked when the schema is declared.
///
/// ```swift
/// static let schema = RecordSchema<Vehicle>(
///     "vehicles",
///     Column("plate", \.plate),
///     Column("modelYear", \.modelYear)
/// )
/// ```
public struct Column<Root: Record>: Sendable {
    let description: ColumnDescription
    let keyPath: UncheckedSendable<PartialKeyPath<Root>>
    let read: @Sendable (Root) -> StoreValue
    let write: @Sendable (inout Root, StoreValue) -> Bool

    /// A column stored under `name`, read from and written to `keyPath`.
    public init<Value: StoreValueConvertible>(_ name: String, _ keyPath: WritableKeyPath<Root, Value>) {
        // Key paths without subscripts are immutable values; Swift 6 does not yet mark them Sendable.
        let path = UncheckedSendable(keyPath)
        self.description = ColumnDescription(name: name, type: Value.columnType, isNullable: Value.isNullable)
        self.keyPath = UncheckedSendable(keyPath)
        self.read = { $0[keyPath: path.value].storeValue }
        self.write = { root, stored in
            guard let value = Value(storeValue: stored) else { return false }
            root[keyPath: path.value] = value
            return true
        }
    }

    /// The column's name.
    public var name: String { description.name }
}
