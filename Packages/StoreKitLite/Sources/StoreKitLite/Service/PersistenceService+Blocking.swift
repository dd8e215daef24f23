import Foundation

/// The blocking forms of the service's steps, for the `…AndWait` methods: the same steps as the async forms, on the
/// backend's blocking access (GRDB's synchronous reads and writes on SQLite), so the calling thread waits for the
/// store itself and never for a task. Used when the backend is a ``SynchronousStoreBackend``.
extension PersistenceService {
    /// Rows matching a query, with unsaved changes applied.
    func rowsBlocking(for query: RowQuery, on backend: any SynchronousStoreBackend) throws(StoreError) -> [StoreRow] {
        try StoreSpan.run(startSpan(fetching: query), rows: { $0.count }) { (span) throws(StoreError) -> [StoreRow] in
            span?.ranOnCallingThread(true)
            return try untracedRowsBlocking(for: query, on: backend)
        }
    }

    /// ``rowsBlocking(for:on:)`` without a span, for reads that are part of a traced operation.
    private func untracedRowsBlocking(
        for query: RowQuery,
        on backend: any SynchronousStoreBackend
    ) throws(StoreError) -> [StoreRow] {
        try context.checkReady()
        try query.validate()
        let pending = overlay().changes(of: query.entity.name)
        if pending.isEmpty {
            return try backend.fetchOnCallingThread(query)
        }
        let stored = try backend.fetchOnCallingThread(Self.storeQuery(for: query, pendingCount: pending.count))
        return Self.overlaid(stored, with: pending, query: query)
    }

    /// Reads the rows matching a query, with unsaved changes applied, through `decode`.
    func readBlocking<Result>(
        _ query: RowQuery,
        on backend: any SynchronousStoreBackend,
        decode: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try context.checkReady()
        try query.validate()
        if overlay().changes(of: query.entity.name).isEmpty {
            return try backend.fetchOnCallingThread(query, reading: decode)
        }
        return try decode(FetchedRowsCursor(try untracedRowsBlocking(for: query, on: backend)))
    }

    /// The number of rows matching a query, with unsaved changes applied.
    func countBlocking(for query: RowQuery, on backend: any SynchronousStoreBackend) throws(StoreError) -> Int {
        try StoreSpan.run(startSpan(counting: query), rows: { _ in nil }) { (span) throws(StoreError) -> Int in
            span?.ranOnCallingThread(true)
            try context.checkReady()
            try query.validate()
            let pending = overlay().changes(of: query.entity.name)
            if pending.isEmpty {
                return try backend.countOnCallingThread(query, excluding: [])
            }
            let stored = try backend.countOnCallingThread(Self.unsliced(query), excluding: Array(pending.keys))
            return Self.count(stored: stored, with: pending, query: query)
        }
    }

    /// Rows for IDs, with unsaved changes applied, in the order of `ids`.
    func rowsBlocking(
        ids: [UUID],
        entity: EntityDescription,
        on backend: any SynchronousStoreBackend
    ) throws(StoreError) -> [StoreRow] {
        try StoreSpan.run(startSpan(fetchingIDs: ids.count, of: entity), rows: { $0.count }) {
            (span) throws(StoreError) -> [StoreRow] in
            span?.ranOnCallingThread(true)
            try context.checkReady()
            let pending = overlay().changes(of: entity.name)
            let missing = ids.filter { pending[$0] == nil }
            var stored: [UUID: StoreRow] = [:]
            if !missing.isEmpty {
                for row in try backend.fetchOnCallingThread(ids: missing, of: entity) {
                    stored[row.id] = row
                }
            }
            return Self.ordered(ids, stored: stored, pending: pending)
        }
    }

    /// Records new rows and applies the save option, as ``insert(_:entity:options:)`` does.
    func insertBlocking(
        _ rows: [StoreRow],
        entity: EntityDescription,
        options: SaveOption,
        on backend: any SynchronousStoreBackend
    ) throws(StoreError) {
        let direct =
            options.reachesStore(fromDepth: depth)
            && context.tree.withLock { tree in ancestry.allSatisfy { tree.levels[$0]?.isEmpty ?? true } }
        guard direct else {
            try recordAndSaveBlocking(options, on: backend) { $0.recordInserts(rows, entity: entity) }
            return
        }
        let batch = ChangeBatch(entities: [EntityChanges(entity: entity, inserts: rows)])
        let span = startSpan(committing: batch, option: options)
        span?.ranOnCallingThread(true)
        do throws(StoreError) {
            try backend.applyOnCallingThread(batch)
            span?.end()
        } catch {
            recordChanges { $0.recordInserts(rows, entity: entity) }
            span?.fail(error)
            throw error
        }
    }

    /// ``recordAndSave(_:_:)`` with the calling thread waiting for its turn and for the commit.
    func recordAndSaveBlocking(
        _ option: SaveOption,
        on backend: any SynchronousStoreBackend,
        _ record: (inout ChangeSet) -> Void
    ) throws(StoreError) {
        let commits = context.commits
        switch try take(option, record) {
        case .done:
            return
        case .wait(let ticket):
            commits.waitForTurnBlocking(ticket)
            commits.finish(ticket)
        case .commit(let ticket, let changes, let taken):
            let batch = changes.batch()
            let span = startSpan(committing: batch, option: option)
            span?.ranOnCallingThread(true)
            commits.waitForTurnBlocking(ticket)
            defer { commits.finish(ticket) }
            do throws(StoreError) {
                try writeBlocking(batch, of: changes, on: backend, span: span)
                endCommit(ticket, giveBack: nil)
                span?.end()
            } catch {
                endCommit(ticket, giveBack: taken)
                span?.fail(error)
                throw error
            }
        }
    }

    /// Writes changes, resolving conflicts with the merge policy, as the async `write` does.
    private func writeBlocking(
        _ batch: ChangeBatch,
        of changes: ChangeSet,
        on backend: any SynchronousStoreBackend,
        span: StoreSpan?
    ) throws(StoreError) {
        var batch = batch
        var attempts = 0
        while true {
            attempts += 1
            do throws(StoreError) {
                try backend.applyOnCallingThread(batch)
                return
            } catch {
                if error.code == .conflict { span?.conflict(records: error.records.count, policy: context.mergePolicy) }
                guard error.code == .conflict, context.mergePolicy != .error, attempts < 8 else { throw error }
                let conflicts = Set(error.records)
                var current: [UUID: StoreRow] = [:]
                for (entity, ids) in Self.byEntity(conflicts, in: changes) {
                    for row in try backend.fetchOnCallingThread(ids: ids, of: entity) {
                        current[row.id] = row
                    }
                }
                batch = resolve(batch, conflicts: conflicts, current: current, changes: changes)
            }
        }
    }
}
