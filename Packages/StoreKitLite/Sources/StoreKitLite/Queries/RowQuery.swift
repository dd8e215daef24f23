/// A query as a backend sees it.
public struct RowQuery: Sendable, Hashable {
    /// The entity queried.
    public var entity: EntityDescription
    /// The condition rows must meet.
    public var predicate: StorePredicate
    /// The ordering keys; ties are broken by ID, ascending.
    public var sortKeys: [SortKey]
    /// The maximum number of rows, or `nil` for all.
    public var limit: Int?
    /// How many matching rows to skip.
    public var offset: Int

    public init(
        entity: EntityDescription,
        predicate: StorePredicate = .constant(true),
        sortKeys: [SortKey] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
    }

    /// Checks that every column the query names is a column of the entity.
    ///
    /// - Throws: ``StoreError/Code/invalidQuery`` naming the first unknown column.
    public func validate() throws(StoreError) {
        for column in predicate.columns + sortKeys.map(\.column)
        where column.index < 0 || column.index >= entity.columns.count
            || entity.columns[column.index].name != column.name
        {
            throw StoreError(.invalidQuery, entity: entity.name, detail: "\(column.name) is not a stored column")
        }
    }
}
