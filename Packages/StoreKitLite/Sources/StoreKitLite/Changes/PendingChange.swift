/// One record's unsaved change in a ``ChangeSet``.
enum PendingChange: Sendable {
    /// A new record (revision 0 until stored).
    case insert(StoreRow)
    /// A changed record: the row after the change (revision = the revision it was read at), the positions of the
    /// changed columns and their values when first read (for the store-wins merge policy and for conflicts
    /// between sibling services).
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
    ///
    /// An update applies only its changed columns to what is pending, so two updates of one record that change
    /// different columns keep both changes, whichever order they come in. The revision a record was read at is
    /// the older of the two, so that the store still checks the earliest read.
    func followed(by newer: PendingChange) -> PendingChange? {
        switch (self, newer) {
        case (.insert, .insert(let row)):
            return .insert(row)
        case (.insert(var row), .update(let newRow, let changed, _)):
            for column in changed { row.values[column] = newRow.values[column] }
            return .insert(row)
        case (.insert, .delete):
            return nil
        case (.update(var row, let changed, let original), .update(let newRow, let moreChanged, let moreOriginal)):
            for column in moreChanged { row.values[column] = newRow.values[column] }
            row.revision = min(row.revision, newRow.revision)
            return .update(
                row,
                changed: changed.union(moreChanged),
                original: original.merging(moreOriginal) { first, _ in first }
            )
        case (.update(let old, _, let original), .insert(var row)):
            row.revision = old.revision
            return .update(row, changed: Set(row.values.indices), original: original)
        case (.update(var old, _, _), .delete(let deleted)):
            old.revision = min(old.revision, deleted.revision)
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

    /// The columns this change sets, as a sibling sees them: every column of an insert, the changed ones of an
    /// update, none of a delete.
    private func setsColumn(_ column: Int) -> Bool {
        switch self {
        case .insert: true
        case .update(_, let changed, _): changed.contains(column)
        case .delete: false
        }
    }

    /// The outcome of saving a child's change `incoming` into its parent, where `self` is pending.
    ///
    /// `incoming` conflicts with `self` when it was made on a state of the record other than the one `self`
    /// leaves: it changes or deletes a column that `self` set to a value other than the one `incoming` read, or
    /// it changes a record `self` deletes. Without a conflict, or under a policy that resolves it, the result is
    /// the merged change (`.some(nil)` when insert and delete cancel out); under ``MergePolicy/error`` a conflict
    /// returns `nil`.
    ///
    /// The policies resolve a conflict as they do against the store, with `self` in the store's place:
    /// ``MergePolicy/oursWins`` writes the incoming columns, ``MergePolicy/storeWins`` keeps the parent's value of
    /// each conflicting column and takes the incoming change's other columns, ``MergePolicy/overwrite`` takes the
    /// incoming record whole, ``MergePolicy/rollback`` drops the incoming change of that record. A record the
    /// parent deletes stays deleted under every policy but ``MergePolicy/overwrite``, which brings it back.
    func absorbing(_ incoming: PendingChange, policy: MergePolicy) -> PendingChange?? {
        switch (self, incoming) {
        case (_, .insert):
            return .some(followed(by: incoming))
        case (.delete, .delete):
            return .some(self)
        case (.delete, .update(let row, _, _)):
            switch policy {
            case .error: return nil
            case .overwrite: return .some(followed(by: .insert(row)))
            case .oursWins, .storeWins, .rollback: return .some(self)
            }
        case (.insert(let row), .update(_, let changed, let original)),
            (.update(let row, _, _), .update(_, let changed, let original)):
            let conflicting = changed.filter { column in
                setsColumn(column) && original[column].map { $0 != row.values[column] } ?? false
            }
            guard !conflicting.isEmpty else { return .some(followed(by: incoming)) }
            switch policy {
            case .error:
                return nil
            case .oursWins:
                return .some(followed(by: incoming))
            case .rollback:
                return .some(self)
            case .overwrite:
                guard case .update(var whole, _, let incomingOriginal) = incoming else { return .some(self) }
                if case .insert = self {
                    whole.revision = 0
                    return .some(.insert(whole))
                }
                guard case .update(let current, _, let currentOriginal) = self else { return .some(self) }
                whole.revision = min(whole.revision, current.revision)
                return .some(
                    .update(
                        whole,
                        changed: Set(whole.values.indices),
                        original: currentOriginal.merging(incomingOriginal) { first, _ in first }
                    )
                )
            case .storeWins:
                guard case .update(let newRow, _, let incomingOriginal) = incoming else { return .some(self) }
                let kept = changed.subtracting(conflicting)
                guard !kept.isEmpty else { return .some(self) }
                let trimmed = PendingChange.update(
                    newRow,
                    changed: kept,
                    original: incomingOriginal.filter { kept.contains($0.key) }
                )
                return .some(followed(by: trimmed))
            }
        case (.insert(let row), .delete(let read)), (.update(let row, _, _), .delete(let read)):
            let conflicts = row.values.indices.contains { column in
                setsColumn(column) && read.values.indices.contains(column) && read.values[column] != row.values[column]
            }
            guard conflicts else { return .some(followed(by: incoming)) }
            switch policy {
            case .error: return nil
            case .oursWins, .overwrite: return .some(followed(by: incoming))
            case .storeWins, .rollback: return .some(self)
            }
        }
    }
}
