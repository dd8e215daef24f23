public import Foundation

/// One stored record as a backend sees it: its ID, its revision and its column values in entity order.
public struct StoreRow: Sendable, Hashable {
    /// The record's UUID.
    public var id: UUID
    /// Bumped by every committed write; 0 for a record that has never been stored.
    public var revision: Int64
    /// The column values, in the order of the entity's columns.
    public var values: [StoreValue]

    public init(id: UUID, revision: Int64, values: [StoreValue]) {
        self.id = id
        self.revision = revision
        self.values = values
    }
}
