/// One ordering key of a query. `NULL` sorts first ascending and last descending, text by UTF-8 bytes.
public struct SortKey: Sendable, Hashable {
    /// The column sorted by.
    public let column: ColumnReference
    /// Ascending (the default) or descending.
    public let ascending: Bool

    public init(column: ColumnReference, ascending: Bool) {
        self.column = column
        self.ascending = ascending
    }
}
