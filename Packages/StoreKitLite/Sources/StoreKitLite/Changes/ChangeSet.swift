import Foundation

/// The unsaved changes of one service: a small state machine with no I/O.
///
/// Changes are kept per entity and per record; recording a change on top of an earlier one folds them
/// (insert + update = insert, update + update = update of the union of columns, insert + delete = nothing, …), so a
/// change set is always the net difference to what the level below holds.
struct ChangeSet: Sendable {
    struct Entry: Sendable {
        var entity: EntityDescription
        var changes: [UUID: PendingChange]
    }

    private(set) var entries: [String: Entry] = [:]

    var isEmpty: Bool {
        entries.values.allSatisfy { $0.changes.isEmpty }
    }

    var count: Int {
        entries.values.reduce(0) { $0 + $1.changes.count }
    }

    /// The pending changes of one entity.
    func changes(of entity: String) -> [UUID: PendingChange] {
        entries[entity]?.changes ?? [:]
    }

    /// Records `change` on top of what is pending for the record.
    mutating func record(_ change: PendingChange, id: UUID, entity: EntityDescription) {
        let existing = entries[entity.name]?.changes[id]
        let folded = existing.map { $0.followed(by: change) } ?? change
        if entries[entity.name] == nil {
            entries[entity.name] = Entry(entity: entity, changes: [:])
        }
        entries[entity.name]?.changes[id] = folded
    }

    /// Records many inserts.
    mutating func recordInserts(_ rows: [StoreRow], entity: EntityDescription) {
        if entries[entity.name] == nil {
            entries[entity.name] = Entry(entity: entity, changes: Dictionary(minimumCapacity: rows.count))
        }
        for row in rows {
            if let existing = entries[entity.name]?.changes[row.id] {
                entries[entity.name]?.changes[row.id] = existing.followed(by: .insert(row))
            } else {
                entries[entity.name]?.changes[row.id] = .insert(row)
            }
        }
    }

    /// Records the difference between a row as read and as changed; nothing when no column changed.
    mutating func recordUpdate(from old: StoreRow, to new: StoreRow, entity: EntityDescription) {
        var changed: Set<Int> = []
        var original: [Int: StoreValue] = [:]
        for index in new.values.indices where old.values[index] != new.values[index] {
            changed.insert(index)
            original[index] = old.values[index]
        }
        guard !changed.isEmpty else { return }
        var row = new
        row.revision = old.revision
        record(.update(row, changed: changed, original: original), id: new.id, entity: entity)
    }

    /// Removes one record's pending change.
    mutating func discard(id: UUID, entity: String) {
        entries[entity]?.changes[id] = nil
    }

    /// Replaces one record's pending change.
    mutating func replace(id: UUID, entity: EntityDescription, with change: PendingChange?) {
        if entries[entity.name] == nil {
            entries[entity.name] = Entry(entity: entity, changes: [:])
        }
        entries[entity.name]?.changes[id] = change
    }

    /// `self` followed by every change of `newer`.
    func merged(with newer: ChangeSet) -> ChangeSet {
        if isEmpty { return newer }
        var result = self
        for (name, entry) in newer.entries {
            if result.entries[name] == nil {
                result.entries[name] = entry
                continue
            }
            for (id, change) in entry.changes {
                let existing = result.entries[name]?.changes[id]
                result.entries[name]?.changes[id] = existing.map { $0.followed(by: change) } ?? change
            }
        }
        return result
    }

    /// `self` with a child service's changes saved into it, as ``SaveOption/saveCurrentOnly`` does: column by
    /// column, with conflicts between the two (see ``PendingChange/absorbing(_:policy:)``) resolved by `policy`.
    ///
    /// - Throws: ``StoreError/Code/conflict`` naming every conflicting record under ``MergePolicy/error``;
    ///   nothing is merged then.
    func absorbing(_ incoming: ChangeSet, policy: MergePolicy) throws(StoreError) -> ChangeSet {
        if isEmpty { return incoming }
        var result = self
        var conflicts: [UUID] = []
        var conflictingEntity: String?
        for (name, entry) in incoming.entries {
            guard let existing = result.entries[name] else {
                result.entries[name] = entry
                continue
            }
            for (id, change) in entry.changes {
                guard let pending = existing.changes[id] else {
                    result.entries[name]?.changes[id] = change
                    continue
                }
                guard let merged = pending.absorbing(change, policy: policy) else {
                    conflicts.append(id)
                    conflictingEntity = conflictingEntity ?? name
                    continue
                }
                result.entries[name]?.changes[id] = merged
            }
        }
        guard conflicts.isEmpty else {
            throw StoreError(
                .conflict,
                entity: conflictingEntity,
                records: conflicts.sorted(by: UUIDBytes.less),
                detail: "a sibling service saved other values of these records first"
            )
        }
        return result
    }

    /// The changes as readers see them while they are being committed: each row carries the revision it will
    /// have in the store once the commit succeeds (1 for an insert, one more than it was read at for an update),
    /// so a change made on top of it is checked against the right revision when it is committed after this one.
    func committedView() -> ChangeSet {
        var result = self
        for (name, entry) in entries {
            for (id, change) in entry.changes {
                switch change {
                case .insert(var row):
                    row.revision = 1
                    result.entries[name]?.changes[id] = .insert(row)
                case .update(var row, let changed, let original):
                    row.revision += 1
                    result.entries[name]?.changes[id] = .update(row, changed: changed, original: original)
                case .delete:
                    break
                }
            }
        }
        return result
    }

    /// The entity that holds a pending change for `id`.
    func entity(holding id: UUID) -> EntityDescription? {
        entries.values.first { $0.changes[id] != nil }?.entity
    }

    /// The batch a backend writes; `checksRevision` is true for every update and delete.
    func batch() -> ChangeBatch {
        var batch = ChangeBatch()
        for name in entries.keys.sorted() {
            guard let entry = entries[name], !entry.changes.isEmpty else { continue }
            var changes = EntityChanges(entity: entry.entity)
            for (_, change) in entry.changes {
                switch change {
                case .insert(let row):
                    changes.inserts.append(row)
                case .update(let row, let changed, _):
                    changes.updates.append(RowUpdate(row: row, changedColumns: changed.sorted()))
                case .delete(let row):
                    changes.deletes.append(RowDelete(row: row))
                }
            }
            changes.inserts.sort { UUIDBytes.less($0.id, $1.id) }
            changes.updates.sort { UUIDBytes.less($0.row.id, $1.row.id) }
            changes.deletes.sort { UUIDBytes.less($0.row.id, $1.row.id) }
            batch.entities.append(changes)
        }
        return batch
    }
}
