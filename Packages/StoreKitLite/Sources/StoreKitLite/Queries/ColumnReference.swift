/// A column named in a query: its name (for SQL) and its position among the entity's columns (for memory).
public struct ColumnReference: Sendable, Hashable {
    /// The column name.
    public let name: String
    /// The position in ``EntityDescription/columns``, or -1 for a key path that is not a column.
    public let index: Int

    public init(name: String, index: Int) {
        self.name = name
        self.index = index
    }
}
