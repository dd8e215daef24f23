/// A stored record type as a backend sees it: a name (the table) and its columns, in order.
///
/// Every entity also has two implicit columns that are not listed: `id` (the record's UUID, 16 bytes, the primary
/// key) and `revision` (an integer bumped by every write, for optimistic concurrency).
public struct EntityDescription: Sendable, Hashable {
    /// The entity name; a backend uses it as the table name.
    public let name: String
    /// The value columns in record order.
    public let columns: [ColumnDescription]

    public init(name: String, columns: [ColumnDescription]) {
        self.name = name
        self.columns = columns
    }

    /// Names StoreKitLite keeps for itself: the implicit columns.
    public static let reservedColumnNames: Set<String> = ["id", "revision"]
}
