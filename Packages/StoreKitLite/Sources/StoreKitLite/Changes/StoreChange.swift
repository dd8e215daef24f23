public import ModelKit

/// The records of one type that one commit inserted, updated and deleted.
public struct StoreChange<Root: Record>: Sendable {
    /// Inserted records, in ID order.
    public let inserted: [ModelID<Root>]
    /// Updated records.
    public let updated: [ModelID<Root>]
    /// Deleted records.
    public let deleted: [ModelID<Root>]

    init(inserted: [ModelID<Root>], updated: [ModelID<Root>], deleted: [ModelID<Root>]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
