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
    @usableFromInline let description: ColumnDescription
    @usableFromInline let keyPath: UncheckedSendable<PartialKeyPath<Root>>
    @usableFromInline let read: @Sendable (Root) -> StoreValue
    @usableFromInline let write: @Sendable (inout Root, StoreValue) -> Bool

    /// A column stored under `name`, read from and written to `keyPath`.
    ///
    /// Inlinable so that the accessors are specialized for the record type where the schema is declared.
    @inlinable
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
