import Foundation

extension MergePolicy {
    /// Rewrites a batch that failed with conflicts so that it can be retried under this policy.
    ///
    /// - Parameters:
    ///   - batch: the batch that failed.
    ///   - conflicts: the conflicting record IDs the backend reported.
    ///   - current: the rows the store holds now for those IDs (missing: deleted in the store).
    ///   - originals: for updated records, the values of the changed columns when first read.
    func resolve(
        _ batch: ChangeBatch,
        conflicts: Set<UUID>,
        current: [UUID: StoreRow],
        originals: [UUID: [Int: StoreValue]]
    ) -> ChangeBatch {
        var resolved = ChangeBatch()
        for var changes in batch.entities {
            var updates: [RowUpdate] = []
            var inserts = changes.inserts
            for update in changes.updates {
                guard conflicts.contains(update.row.id) else {
                    updates.append(update)
                    continue
                }
                let stored = current[update.row.id]
                switch self {
                case .error, .rollback:
                    continue
                case .oursWins:
                    guard let stored else { continue }
                    var row = update.row
                    row.revision = stored.revision
                    updates.append(RowUpdate(row: row, changedColumns: update.changedColumns))
                case .overwrite:
                    guard let stored else {
                        var row = update.row
                        row.revision = 0
                        inserts.append(row)
                        continue
                    }
                    var row = update.row
                    row.revision = stored.revision
                    updates.append(RowUpdate(row: row, changedColumns: Array(row.values.indices)))
                case .storeWins:
                    guard let stored else { continue }
                    let original = originals[update.row.id] ?? [:]
                    var row = stored
                    var kept: [Int] = []
                    for column in update.changedColumns where original[column] == stored.values[column] {
                        row.values[column] = update.row.values[column]
                        kept.append(column)
                    }
                    if !kept.isEmpty {
                        updates.append(RowUpdate(row: row, changedColumns: kept))
                    }
                }
            }
            var deletes: [RowDelete] = []
            for delete in changes.deletes {
                guard conflicts.contains(delete.row.id) else {
                    deletes.append(delete)
                    continue
                }
                switch self {
                case .error, .rollback, .storeWins:
                    continue
                case .oursWins, .overwrite:
                    guard let stored = current[delete.row.id] else { continue }
                    deletes.append(RowDelete(row: stored))
                }
            }
            inserts.sort { UUIDBytes.less($0.id, $1.id) }
            changes.inserts = inserts
            changes.updates = updates
            changes.deletes = deletes
            resolved.entities.append(changes)
        }
        return resolved
    }
}
