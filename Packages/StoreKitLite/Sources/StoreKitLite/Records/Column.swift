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
    /// Reads the column from a cursor straight into a record.
    @usableFromInline let decoder: ColumnDecoder

    /// A column stored under `name`, read from and written to `keyPath`.
    ///
    /// Inlinable so that the accessors are specialized for the record type where the schema is declared.
    @inlinable
    public init<Value: StoreValueConvertible>(_ name: String, _ keyPath: WritableKeyPath<Root, Value>) {
        self.description = ColumnDescription(name: name, type: Value.columnType, isNullable: Value.isNullable)
        self.keyPath = UncheckedSendable(keyPath)
        if let offset = MemoryLayout<Root>.offset(of: keyPath) {
            // A stored property held inline in the record: read and write it at its offset, the access pattern
            // `MemoryLayout.offset(of:)` documents, instead of applying the key path through the runtime, which
            // costs most of the time of decoding and encoding rows.
            self.read = { root in
                withUnsafeBytes(of: root) { raw in raw.load(fromByteOffset: offset, as: Value.self) }.storeValue
            }
            self.write = { root, stored in
                guard let value = Value(storeValue: stored) else { return false }
                withUnsafeMutableBytes(of: &root) { raw in
                    guard let base = raw.baseAddress else { return }
                    base.advanced(by: offset).assumingMemoryBound(to: Value.self).pointee = value
                }
                return true
            }
            self.decoder = ColumnDecoder(offset: offset) { record, row, index, offset in
                guard let value = Value.decode(column: index, of: row) else { return false }
                record.advanced(by: offset).assumingMemoryBound(to: Value.self).pointee = value
                return true
            }
        } else {
            // Key paths without subscripts are immutable values; Swift 6 does not yet mark them Sendable.
            let path = UncheckedSendable(keyPath)
            self.read = { $0[keyPath: path.value].storeValue }
            self.write = { root, stored in
                guard let value = Value(storeValue: stored) else { return false }
                root[keyPath: path.value] = value
                return true
            }
            self.decoder = ColumnDecoder(offset: 0) { record, row, index, _ in
                guard let value = Value.decode(column: index, of: row) else { return false }
                record.assumingMemoryBound(to: Root.self).pointee[keyPath: path.value] = value
                return true
            }
        }
    }

    /// The column's name.
    public var name: String { description.name }
}
