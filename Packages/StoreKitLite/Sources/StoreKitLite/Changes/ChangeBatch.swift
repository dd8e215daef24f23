/// Everything one commit writes, grouped by entity: what a backend applies in one transaction.
public struct ChangeBatch: Sendable {
    /// The changes per entity, in a stable order.
    public var entities: [EntityChanges]
    /// The batch's position in the store's change log, when it has one (``ChangeFeed/allProcesses(pollInterval:retention:)``)
    /// and the batch came from it; `nil` otherwise.
    public var sequence: Int64?
    /// Whether another process (or another backend on the same store) committed the batch, and this one read it
    /// from the change log. Such a batch carries the inserted and updated rows as they were when it was read, and
    /// each deleted record, or one whose row was gone by then, as its ID alone: revision 0 and `NULL` values.
    /// Observers cannot tell whether such a record matched a query, so a query's observers are told of it.
    public var isFromAnotherProcess = false

    public init(entities: [EntityChanges] = []) {
        self.entities = entities
    }

    /// Whether the batch writes nothing.
    public var isEmpty: Bool {
        entities.allSatisfy(\.isEmpty)
    }
}

/// The inserts, updates and deletes of one entity in a ``ChangeBatch``.
public struct EntityChanges: Sendable {
    /// The entity written.
    public var entity: EntityDescription
    /// New rows, in ID order; their revision is 1 once stored.
    public var inserts: [StoreRow]
    /// Changed rows.
    public var updates: [RowUpdate]
    /// Removed rows.
    public var deletes: [RowDelete]

    public init(
        entity: EntityDescription,
        inserts: [StoreRow] = [],
        updates: [RowUpdate] = [],
        deletes: [RowDelete] = []
    ) {
        self.entity = entity
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
    }

    /// Whether nothing is written for the entity.
    public var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty
    }
}

/// One changed row: a backend writes only ``changedColumns`` and bumps the revision.
public struct RowUpdate: Sendable {
    /// The row as it is after the change (every column), with ``StoreRow/revision`` the revision it was read at.
    public var row: StoreRow
    /// Positions of the columns that changed, ascending. Only these are written.
    public var changedColumns: [Int]
    /// Whether the store's revision must still equal `row.revision` (optimistic concurrency); `false` overwrites.
    public var checksRevision: Bool

    public init(row: StoreRow, changedColumns: [Int], checksRevision: Bool = true) {
        self.row = row
        self.changedColumns = changedColumns
        self.checksRevision = checksRevision
    }
}

/// One removed row.
public struct RowDelete: Sendable {
    /// The row as it was last read (its values let observers match queries), revision included.
    public var row: StoreRow
    /// Whether the store's revision must still equal `row.revision`; `false` deletes whatever is stored.
    public var checksRevision: Bool

    public init(row: StoreRow, checksRevision: Bool = true) {
        self.row = row
        self.checksRevision = checksRevision
    }
}

extension ChangeBatch {
    /// What a backend may log about the batch, as log metadata: the entities it touches and how many rows it
    /// inserts, updates and deletes (`storekitlite.inserts`, …). Never a value.
    public var logSummary: [String: String] {
        var inserts = 0
        var updates = 0
        var deletes = 0
        for changes in entities {
            inserts += changes.inserts.count
            updates += changes.updates.count
            deletes += changes.deletes.count
        }
        return [
            "storekitlite.entities": entities.map(\.entity.name).joined(separator: ","),
            "storekitlite.inserts": String(inserts),
            "storekitlite.updates": String(updates),
            "storekitlite.deletes": String(deletes),
        ]
    }
}
