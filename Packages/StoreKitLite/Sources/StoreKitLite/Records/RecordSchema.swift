public import ModelKit

/// The stored columns of a record type, with the lookups StoreKitLite needs, computed once.
///
/// Declare it as a `static let` on the record type so it is built exactly once.
public struct RecordSchema<Root: Record>: Sendable {
    /// The entity a backend stores.
    public let entity: EntityDescription
    @usableFromInline let columns: [Column<Root>]
    /// The column accessors apart, so hot loops do not copy whole `Column` values.
    @usableFromInline let readers: [@Sendable (Root) -> StoreValue]
    @usableFromInline let writers: [@Sendable (inout Root, StoreValue) -> Bool]
    @usableFromInline let decoders: [ColumnDecoder]
    private let indexByKeyPath: UncheckedSendable<[PartialKeyPath<Root>: Int]>

    /// A schema for `entityName` with the given columns, in order.
    public init(_ entityName: String, _ columns: Column<Root>...) {
        self.init(entityName, columns: columns)
    }

    /// A schema for `entityName` with the given columns, in order.
    public init(_ entityName: String, columns: [Column<Root>]) {
        self.entity = EntityDescription(name: entityName, columns: columns.map(\.description))
        self.columns = columns
        self.readers = columns.map(\.read)
        self.writers = columns.map(\.write)
        self.decoders = columns.map(\.decoder)
        var index: [PartialKeyPath<Root>: Int] = [:]
        for (position, column) in columns.enumerated() {
            index[column.keyPath.value] = position
        }
        // Duplicate and reserved names are reported by `StoreModel.validate()` when a service initializes.
        self.indexByKeyPath = UncheckedSendable(index)
    }

    /// The position of the column stored from `keyPath`, or `nil` when no column uses it.
    public func columnIndex(of keyPath: PartialKeyPath<Root>) -> Int? {
        indexByKeyPath.value[keyPath]
    }

    /// The stored values of a record, in column order.
    @inlinable
    public func values(of record: Root) -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(readers.count)
        readers.withUnsafeBufferPointer { readers in
            for reader in readers {
                values.append(reader(record))
            }
        }
        return values
    }

    /// The stored value of one column of a record.
    public func value(at index: Int, of record: Root) -> StoreValue {
        readers[index](record)
    }

    /// The row storing a record at a revision.
    @inlinable
    public func row(of record: Root, revision: Int64) -> StoreRow {
        StoreRow(id: record.id.uuid, revision: revision, values: values(of: record))
    }

    /// Rebuilds a record from a stored row.
    ///
    /// - Throws: `StoreError.Code.corruptValue` when a stored value does not fit its column's Swift type.
    @inlinable
    public func record(from row: StoreRow) throws(StoreError) -> Root {
        var record = Root(id: ModelID(uuid: row.id))
        guard row.values.count == columns.count else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "row has \(row.values.count) values")
        }
        let failed = writers.withUnsafeBufferPointer { writers -> Int? in
            for index in writers.indices where !writers[index](&record, row.values[index]) {
                return index
            }
            return nil
        }
        if let index = failed {
            throw StoreError(
                .corruptValue,
                entity: entity.name,
                detail: "column \(columns[index].name) holds \(row.values[index])"
            )
        }
        return record
    }

    /// Rebuilds the records of every row left in a cursor, reading each column straight into its property.
    ///
    /// - Throws: `StoreError.Code.corruptValue` when a stored value does not fit its column's Swift type (the
    ///   same error ``record(from:)`` reports for the same row); the cursor's errors.
    @inlinable
    public func records(from cursor: any StoreCursor) throws(StoreError) -> [Root] {
        try records(from: cursor) { $0 }
    }

    /// Rebuilds the record of every row left in a cursor and maps it with `transform` as it goes, so that no
    /// array of records is built when only the transformed values are wanted.
    ///
    /// `transform` is called once per row, in order, right after the row is decoded: when a later row fails to
    /// decode, it has already been called for the rows before.
    @inlinable
    func records<T>(from cursor: any StoreCursor, transform: (Root) -> T) throws(StoreError) -> [T] {
        var values: [T] = []
        while let id = try cursor.next() {
            var record = Root(id: ModelID(uuid: id))
            let columnCount = cursor.columnCount
            guard columnCount == decoders.count else {
                throw StoreError(.corruptValue, entity: entity.name, detail: "row has \(columnCount) values")
            }
            let failed = decoders.withUnsafeBufferPointer { decoders -> Int? in
                withUnsafeMutableBytes(of: &record) { raw -> Int? in
                    guard let base = raw.baseAddress else { return nil }
                    for index in decoders.indices {
                        let decoder = decoders[index]
                        if !decoder.decode(base, cursor, index, decoder.offset) { return index }
                    }
                    return nil
                }
            }
            if let index = failed {
                throw StoreError(
                    .corruptValue,
                    entity: entity.name,
                    detail: "column \(columns[index].name) holds \(cursor.value(at: index))"
                )
            }
            values.append(transform(record))
        }
        return values
    }
}
