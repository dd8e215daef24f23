import ModelKit

/// The stored columns of a record type, with the lookups StoreKitLite needs, computed once.
///
/// Declare it as a `static let` on the record type so it is built exactly once.
public struct RecordSchema<Root: Record>: Sendable {
    /// The entity a backend stores.
    public let entity: EntityDescription
    let columns: [Column<Root>]
    private let indexByKeyPath: UncheckedSendable<[PartialKeyPath<Root>: Int]>
    /// Why the schema is unusable (duplicate or reserved names), reported when a service uses it.
    let problem: String?

    /// A schema for `entityName` with the given columns, in order.
    public init(_ entityName: String, _ columns: Column<Root>...) {
        self.init(entityName, columns: columns)
    }

    /// A schema for `entityName` with the given columns, in order.
    public init(_ entityName: String, columns: [Column<Root>]) {
        self.entity = EntityDescription(name: entityName, columns: columns.map(\.description))
        self.columns = columns
        var index: [PartialKeyPath<Root>: Int] = [:]
        var names: Set<String> = []
        var problem: String?
        for (position, column) in columns.enumerated() {
            index[column.keyPath.value] = position
            if EntityDescription.reservedColumnNames.contains(column.name) {
                problem = "column name \(column.name) is reserved"
            } else if !names.insert(column.name).inserted {
                problem = "column name \(column.name) is used twice"
            }
        }
        if entityName.isEmpty || columns.isEmpty {
            problem = "an entity needs a name and at least one column"
        }
        self.indexByKeyPath = UncheckedSendable(index)
        self.problem = problem
    }

    /// The position of the column stored from `keyPath`, or `nil` when no column uses it.
    public func columnIndex(of keyPath: PartialKeyPath<Root>) -> Int? {
        indexByKeyPath.value[keyPath]
    }

    /// The stored values of a record, in column order.
    public func values(of record: Root) -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(columns.count)
        for column in columns {
            values.append(column.read(record))
        }
        return values
    }

    /// The stored value of one column of a record.
    public func value(at index: Int, of record: Root) -> StoreValue {
        columns[index].read(record)
    }

    /// The row storing a record at a revision.
    public func row(of record: Root, revision: Int64) -> StoreRow {
        StoreRow(id: record.id.uuid, revision: revision, values: values(of: record))
    }

    /// Rebuilds a record from a stored row.
    ///
    /// - Throws: ``StoreError/corruptValue`` when a stored value does not fit its column's Swift type.
    public func record(from row: StoreRow) throws(StoreError) -> Root {
        var record = Root(id: ModelID(uuid: row.id))
        guard row.values.count == columns.count else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "row has \(row.values.count) values")
        }
        for index in columns.indices where !columns[index].write(&record, row.values[index]) {
            throw StoreError(
                .corruptValue,
                entity: entity.name,
                detail: "column \(columns[index].name) holds \(row.values[index])"
            )
        }
        return record
    }
}
