/// What to fetch: a predicate, an order, a limit and an offset.
///
/// Records that compare equal on every sort key come in ID order (creation order), so results are deterministic.
///
/// ```swift
/// let query = Query<Vehicle>(\.modelYear >= 2020).sorted(by: \.plate).limit(10)
/// ```
public struct Query<Root: Record>: Sendable {
    /// The condition records must meet.
    public var predicate: RecordPredicate<Root>
    /// The ordering keys, most significant first.
    public var sortKeys: [SortKey]
    /// The maximum number of records, or `nil` for all.
    public var limit: Int?
    /// How many matching records to skip.
    public var offset: Int

    /// Every record (or those matching `predicate`), in ID order.
    public init(_ predicate: RecordPredicate<Root> = .all) {
        self.predicate = predicate
        self.sortKeys = []
        self.limit = nil
        self.offset = 0
    }

    /// The query with another condition added with `AND`.
    public func filter(_ predicate: RecordPredicate<Root>) -> Query {
        var copy = self
        copy.predicate = self.predicate.expression == .constant(true) ? predicate : self.predicate && predicate
        return copy
    }

    /// The query with another ordering key.
    public func sorted<Value: StoreValueConvertible>(
        by keyPath: KeyPath<Root, Value>,
        ascending: Bool = true
    ) -> Query {
        var copy = self
        copy.sortKeys.append(SortKey(column: RecordPredicate<Root>.reference(keyPath), ascending: ascending))
        return copy
    }

    /// The query returning at most `count` records.
    public func limit(_ count: Int) -> Query {
        var copy = self
        copy.limit = max(0, count)
        return copy
    }

    /// The query skipping the first `count` matching records.
    public func offset(_ count: Int) -> Query {
        var copy = self
        copy.offset = max(0, count)
        return copy
    }

    /// The type-erased form a backend runs.
    public var rowQuery: RowQuery {
        RowQuery(
            entity: Root.schema.entity,
            predicate: predicate.expression,
            sortKeys: sortKeys,
            limit: limit,
            offset: offset
        )
    }
}
