/// One record's unsaved change in a ``ChangeSet``.
enum PendingChange: Sendable {
    /// A new record (revision 0 until stored).
    case insert(StoreRow)
    /// A changed record: the row after the change (revision = the revision it was read at), the positions of the
    /// changed columns and their values when first read (for the store-wins merge policy).
    case update(StoreRow, changed: Set<Int>, original: [Int: StoreValue])
    /// A removed record, as last read.
    case delete(StoreRow)

    /// The row a read sees, or `nil` for a deleted record.
    var visibleRow: StoreRow? {
        switch self {
        case .insert(let row), .update(let row, _, _): row
        case .delete: nil
        }
    }

    /// This change followed by `newer`; `nil` when they cancel out (insert then delete).
    func followed(by newer: PendingChange) -> PendingChange? {
        switch (self, newer) {
        case (.insert, .insert(let row)):
            return .insert(row)
        case (.insert, .update(var row, _, _)):
            row.revision = 0
            return .insert(row)
        case (.insert, .delete):
            return nil
        case (.update(let old, let changed, let original), .update(var row, let moreChanged, let moreOriginal)):
            row.revision = old.revision
            return .update(
                row,
                changed: changed.union(moreChanged),
                original: original.merging(moreOriginal) { a, _ in a }
            )
        case (.update(let old, _, let original), .insert(var row)):
            row.revision = old.revision
            return .update(row, changed: Set(row.values.indices), original: original)
        case (.update(let old, _, _), .delete):
            return .delete(old)
        case (.delete(let old), .insert(var row)):
            row.revision = old.revision
            var original: [Int: StoreValue] = [:]
            for index in old.values.indices { original[index] = old.values[index] }
            return .update(row, changed: Set(row.values.indices), original: original)
        case (.delete, .update), (.delete, .delete):
            return self
        }
    }
}
