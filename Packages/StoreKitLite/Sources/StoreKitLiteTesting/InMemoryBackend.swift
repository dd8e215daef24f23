public import Foundation
public import StoreKitLite

/// A ``StoreKitLite/StoreBackend`` in memory: for tests, previews and as the reference the conformance suite
/// holds other backends to.
///
/// It evaluates queries with ``StoreKitLite/RowQuery/apply(to:)``, the same code that evaluates them over unsaved
/// changes, so it defines the semantics SQL backends must match. Several services can share one instance to act
/// as several processes on one store.
public final class InMemoryBackend: SynchronousStoreBackend {
    private struct State {
        var applied: [String] = []
        var tables: [String: [UUID: StoreRow]] = [:]
        /// The unique indexes of each entity: their names and the columns they cover.
        var uniqueIndexes: [String: [(name: String, columns: [String])]] = [:]
        /// The entities as migrated, to find a unique index's columns.
        var entities: [String: EntityDescription] = [:]
        /// Counts commits, for ``commitVersion()``.
        var commits: Int64 = 0
    }

    private let state = Locked(State())
    private let broadcaster = CommitBroadcaster()

    public init() {}

    /// `storekitlite.memory`: OpenTelemetry has no name for it, so it is StoreKitLite's own.
    public var backendDescription: BackendDescription {
        BackendDescription(system: "storekitlite.memory")
    }

    public func migrate(to model: StoreModel) async throws(StoreError) {
        try await migrate(to: model, recording: .off)
    }

    public func migrate(to model: StoreModel, recording recorder: MigrationRecorder) async throws(StoreError) {
        try state.withLock { (state: inout State) throws(StoreError) in
            let pending = try model.pendingMigrations(afterApplied: state.applied)
            var tables = state.tables
            var uniqueIndexes = state.uniqueIndexes
            var entities = state.entities
            for (offset, migration) in pending.enumerated() {
                try recorder.record(migration, at: state.applied.count + offset) { () throws(StoreError) in
                    for step in migration.steps {
                        switch step {
                        case .createEntity(let entity):
                            tables[entity.name] = tables[entity.name] ?? [:]
                            entities[entity.name] = entity
                        case .addColumn(let entity, let column, let defaultValue):
                            guard var table = tables[entity] else {
                                throw StoreError(.invalidModel, entity: entity, detail: "no such entity")
                            }
                            for id in table.keys { table[id]?.values.append(defaultValue) }
                            tables[entity] = table
                            if let described = entities[entity] {
                                entities[entity] = EntityDescription(
                                    name: entity,
                                    columns: described.columns + [column]
                                )
                            }
                        case .createIndex:
                            // Memory is scanned; an index would change speed only, never results.
                            break
                        case .createUniqueIndex(let name, let entity, let columns):
                            uniqueIndexes[entity, default: []].append((name, columns))
                            if let described = entities[entity] {
                                try Self.checkUnique(
                                    tables[entity] ?? [:],
                                    entity: described,
                                    indexes: [(name, columns)]
                                )
                            }
                        }
                    }
                }
            }
            state.tables = tables
            state.uniqueIndexes = uniqueIndexes
            state.entities = entities
            state.applied += pending.map(\.name)
        }
    }

    public func apply(_ batch: ChangeBatch) async throws(StoreError) {
        try applyOnCallingThread(batch)
    }

    /// Writes a batch under the backend's lock; never waits for anything else.
    public func applyOnCallingThread(_ batch: ChangeBatch) throws(StoreError) {
        guard !batch.isEmpty else { return }
        try state.withLock { (state: inout State) throws(StoreError) in
            var conflicts: [UUID] = []
            for changes in batch.entities {
                guard let table = state.tables[changes.entity.name] else {
                    throw StoreError(.backend, entity: changes.entity.name, detail: "no such entity")
                }
                for row in changes.inserts where table[row.id] != nil {
                    throw StoreError(.duplicateRecord, entity: changes.entity.name, records: [row.id])
                }
                for update in changes.updates where update.checksRevision {
                    if table[update.row.id]?.revision != update.row.revision { conflicts.append(update.row.id) }
                }
                for delete in changes.deletes where delete.checksRevision {
                    if table[delete.row.id]?.revision != delete.row.revision { conflicts.append(delete.row.id) }
                }
            }
            guard conflicts.isEmpty else {
                throw StoreError(.conflict, entity: batch.entities.first?.entity.name, records: conflicts)
            }
            var tables = state.tables
            for changes in batch.entities {
                var table = tables[changes.entity.name] ?? [:]
                for var row in changes.inserts {
                    row.revision = 1
                    table[row.id] = row
                }
                for update in changes.updates {
                    guard var row = table[update.row.id] else { continue }
                    for column in update.changedColumns { row.values[column] = update.row.values[column] }
                    row.revision += 1
                    table[row.id] = row
                }
                for delete in changes.deletes {
                    table[delete.row.id] = nil
                }
                tables[changes.entity.name] = table
            }
            for changes in batch.entities {
                guard let indexes = state.uniqueIndexes[changes.entity.name], let table = tables[changes.entity.name]
                else { continue }
                try Self.checkUnique(
                    table,
                    entity: state.entities[changes.entity.name] ?? changes.entity,
                    indexes: indexes
                )
            }
            state.tables = tables
            state.commits += 1
        }
        broadcaster.publish(batch)
    }

    /// The number of commits so far: every service sharing this instance commits through it.
    public func commitVersion() throws(StoreError) -> Int64 {
        state.withLock { $0.commits }
    }

    public func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow] {
        try fetchRows(query)
    }

    public func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try read(FetchedRowsCursor(try fetchRows(query)))
    }

    private func fetchRows(_ query: RowQuery) throws(StoreError) -> [StoreRow] {
        let rows = try state.withLock { (state: inout State) throws(StoreError) -> [StoreRow] in
            guard let table = state.tables[query.entity.name] else {
                throw StoreError(.backend, entity: query.entity.name, detail: "no such entity")
            }
            return Array(table.values)
        }
        return query.apply(to: rows)
    }

    public func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        try countRows(query, excluding: excluded)
    }

    public func countOnCallingThread(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int {
        try countRows(query, excluding: excluded)
    }

    private func countRows(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int {
        let skipped = Set(excluded)
        let total = try state.withLock { (state: inout State) throws(StoreError) -> Int in
            guard let table = state.tables[query.entity.name] else {
                throw StoreError(.backend, entity: query.entity.name, detail: "no such entity")
            }
            return table.values.count(where: { !skipped.contains($0.id) && query.matches($0) })
        }
        return query.slicedCount(total)
    }

    public func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        try fetchRows(ids: ids, of: entity)
    }

    public func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow] {
        try fetchRows(ids: ids, of: entity)
    }

    private func fetchRows(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow] {
        try state.withLock { (state: inout State) throws(StoreError) -> [StoreRow] in
            guard let table = state.tables[entity.name] else {
                throw StoreError(.backend, entity: entity.name, detail: "no such entity")
            }
            return ids.compactMap { table[$0] }
        }
    }

    /// Throws ``StoreKitLite/StoreError/Code/duplicateValue`` when two rows of `table` have equal values in every
    /// column of one of `indexes`; a row with `NULL` in one of them never clashes, as in SQL.
    private static func checkUnique(
        _ table: [UUID: StoreRow],
        entity: EntityDescription,
        indexes: [(name: String, columns: [String])]
    ) throws(StoreError) {
        for index in indexes {
            let positions = index.columns.map { name in entity.columns.firstIndex { $0.name == name } }
            var seen: Set<[StoreValue]> = []
            for row in table.values {
                let key = positions.map { position -> StoreValue in
                    guard let position else { return .text(row.id.uuidString) }
                    return row.values[position]
                }
                guard !key.contains(where: \.isNull) else { continue }
                guard seen.insert(key).inserted else {
                    throw StoreError(
                        .duplicateValue,
                        entity: entity.name,
                        detail: "the unique index \(index.name) has two records with the same values"
                    )
                }
            }
        }
    }

    public func committedChanges() -> AsyncStream<ChangeBatch> {
        broadcaster.subscribe()
    }
}
