extension RowQuery {
    /// Whether a row matches the predicate (true, not unknown).
    public func matches(_ row: StoreRow) -> Bool {
        predicate.evaluate(row.values) == true
    }

    /// Whether `lhs` comes before `rhs` in the query's order (sort keys, then ID).
    public func precedes(_ lhs: StoreRow, _ rhs: StoreRow) -> Bool {
        for key in sortKeys {
            let order = StoreValue.order(lhs.values[key.column.index], rhs.values[key.column.index])
            switch order {
            case .same: continue
            case .ascending: return key.ascending
            case .descending: return !key.ascending
            }
        }
        return UUIDBytes.less(lhs.id, rhs.id)
    }

    /// How many of `total` matching rows the query's offset and limit keep.
    public func slicedCount(_ total: Int) -> Int {
        let remaining = max(0, total - offset)
        return limit.map { min(max(0, $0), remaining) } ?? remaining
    }

    /// Filters, sorts and slices rows exactly as a backend runs this query.
    public func apply(to rows: some Sequence<StoreRow>) -> [StoreRow] {
        var matching = rows.filter(matches)
        matching.sort(by: precedes)
        let start = min(offset, matching.count)
        let end = limit.map { min(matching.count, start + $0) } ?? matching.count
        return Array(matching[start..<end])
    }
}
