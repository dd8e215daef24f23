public import Foundation

extension PersistenceService {
    /// The unsaved changes a read in this service sees: commits in flight, then every level from the root down.
    func overlay() -> ChangeSet {
        context.tree.withLock { tree in
            var result = ChangeSet()
            for token in tree.inFlight.keys.sorted() {
                if let changes = tree.inFlight[token] { result = result.merged(with: changes) }
            }
            for id in ancestry {
                if let changes = tree.levels[id] { result = result.merged(with: changes) }
            }
            return result
        }
    }

    /// Rows matching a query, with unsaved changes applied.
    @usableFromInline
    func rows(for query: RowQuery) async throws(StoreError) -> [StoreRow] {
        try await StoreSpan.runAsync(startSpan(fetching: query), rows: { $0.count }) {
            (span) async throws(StoreError) -> [StoreRow] in
            try context.checkReady()
            try query.validate()
            span?.ranOnCallingThread(false)
            let pending = overlay().changes(of: query.entity.name)
            if pending.isEmpty {
                return try await context.backend.fetch(query)
            }
            return try await rows(for: query, overlaidWith: pending)
        }
    }

    /// Reads the rows matching a query, with unsaved changes applied, through `decode`: straight from the
    /// backend's cursor when nothing is pending for the entity, from the overlaid rows otherwise.
    @usableFromInline
    func read<Result: Sendable>(
        _ query: RowQuery,
        decode: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try context.checkReady()
        try query.validate()
        let pending = overlay().changes(of: query.entity.name)
        if pending.isEmpty {
            return try await context.backend.fetch(query, reading: decode)
        }
        return try decode(FetchedRowsCursor(try await rows(for: query, overlaidWith: pending)))
    }

    /// The backend to read `query` on the calling thread, when the read is short by construction (it has a limit
    /// of at most ``callingThreadRowLimit`` rows), nothing is pending for its entity, and the backend answers on the
    /// calling thread (``SynchronousStoreBackend``); `nil` when the read runs on the backend's `async` path.
    @usableFromInline
    func callingThreadBackend(for query: RowQuery) throws(StoreError) -> (any SynchronousStoreBackend)? {
        try context.checkReady()
        try query.validate()
        guard let backend = context.synchronous, let limit = query.limit, limit <= Self.callingThreadRowLimit,
            overlay().changes(of: query.entity.name).isEmpty
        else { return nil }
        return backend
    }

    /// The most rows a read runs on the calling thread: a page, a lookup by ID. Longer reads suspend instead, so
    /// that a caller's thread (a NIO event loop, say) is never held for a long scan.
    @usableFromInline
    static var callingThreadRowLimit: Int { 1_000 }

    /// The stored rows matching a query overlaid with pending changes of its entity.
    private func rows(
        for query: RowQuery,
        overlaidWith pending: [UUID: PendingChange]
    ) async throws(StoreError) -> [StoreRow] {
        let stored = try await context.backend.fetch(Self.storeQuery(for: query, pendingCount: pending.count))
        return Self.overlaid(stored, with: pending, query: query)
    }

    /// The query to run in the store when `pendingCount` pending changes will be overlaid on its result: no
    /// offset, and a limit that leaves room for every stored row a pending change replaces.
    static func storeQuery(for query: RowQuery, pendingCount: Int) -> RowQuery {
        var storeQuery = query
        storeQuery.offset = 0
        storeQuery.limit = query.limit.map { query.offset + $0 + pendingCount }
        return storeQuery
    }

    /// Stored rows with the pending changes applied, then the query's predicate, order, offset and limit.
    static func overlaid(_ stored: [StoreRow], with pending: [UUID: PendingChange], query: RowQuery) -> [StoreRow] {
        var candidates = stored.filter { pending[$0.id] == nil }
        for change in pending.values {
            if let row = change.visibleRow { candidates.append(row) }
        }
        return query.apply(to: candidates)
    }

    /// The number of rows matching a query, with unsaved changes applied: the store counts the rows that no pending
    /// change touches; each pending change's visible row is matched in memory.
    func count(for query: RowQuery) async throws(StoreError) -> Int {
        try await StoreSpan.runAsync(startSpan(counting: query), rows: { _ in nil }) {
            (span) async throws(StoreError) -> Int in
            try context.checkReady()
            try query.validate()
            let pending = overlay().changes(of: query.entity.name)
            if let backend = context.synchronous {
                // A count reads no row out of the store: short enough for the calling thread.
                span?.ranOnCallingThread(true)
                if pending.isEmpty { return try backend.countOnCallingThread(query, excluding: []) }
                let stored = try backend.countOnCallingThread(Self.unsliced(query), excluding: Array(pending.keys))
                return Self.count(stored: stored, with: pending, query: query)
            }
            span?.ranOnCallingThread(false)
            if pending.isEmpty {
                return try await context.backend.count(query, excluding: [])
            }
            let stored = try await context.backend.count(Self.unsliced(query), excluding: Array(pending.keys))
            return Self.count(stored: stored, with: pending, query: query)
        }
    }

    /// `query` without order, offset or limit: what the store counts before pending changes are overlaid.
    static func unsliced(_ query: RowQuery) -> RowQuery {
        var unsliced = query
        unsliced.sortKeys = []
        unsliced.limit = nil
        unsliced.offset = 0
        return unsliced
    }

    /// The count of a query given the store's count of the rows no pending change touches.
    static func count(stored: Int, with pending: [UUID: PendingChange], query: RowQuery) -> Int {
        var total = stored
        for change in pending.values {
            if let row = change.visibleRow, query.matches(row) { total += 1 }
        }
        return query.slicedCount(total)
    }

    /// Rows for IDs, with unsaved changes applied, in the order of `ids` (duplicates and missing IDs skipped).
    @usableFromInline
    func rows(ids: [UUID], entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        // The read as it is without a tracer; the traced read is a function of its own, so that this one's frame and
        // code stay those of the plain read.
        if context.tracer != nil { return try await tracedRows(ids: ids, entity: entity) }
        var callingThread = false
        return try await rows(ids: ids, entity: entity, callingThread: &callingThread)
    }

    /// ``rows(ids:entity:)`` in a span.
    @inline(never)
    private func tracedRows(ids: [UUID], entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        guard let span = startSpan(fetchingIDs: ids.count, of: entity) else {
            var callingThread = false
            return try await rows(ids: ids, entity: entity, callingThread: &callingThread)
        }
        var callingThread = false
        do throws(StoreError) {
            let rows = try await rows(ids: ids, entity: entity, callingThread: &callingThread)
            span.ranOnCallingThread(callingThread)
            span.end(returnedRows: rows.count)
            return rows
        } catch {
            span.ranOnCallingThread(callingThread)
            span.fail(error)
            throw error
        }
    }

    /// The read of ``rows(ids:entity:)``; sets `callingThread` when it read the store on the calling thread.
    @inline(__always)
    private func rows(
        ids: [UUID],
        entity: EntityDescription,
        callingThread: inout Bool
    ) async throws(StoreError) -> [StoreRow] {
        try context.checkReady()
        let pending = overlay().changes(of: entity.name)
        let missing = ids.filter { pending[$0] == nil }
        var stored: [UUID: StoreRow] = [:]
        if !missing.isEmpty {
            let rows: [StoreRow]
            if let backend = context.synchronous, missing.count <= Self.callingThreadRowLimit {
                callingThread = true
                rows = try backend.fetchOnCallingThread(ids: missing, of: entity)
            } else {
                rows = try await context.backend.fetch(ids: missing, of: entity)
            }
            for row in rows {
                stored[row.id] = row
            }
        }
        return Self.ordered(ids, stored: stored, pending: pending)
    }

    /// The rows for `ids`, in their order (duplicates and missing IDs skipped), pending changes first.
    static func ordered(_ ids: [UUID], stored: [UUID: StoreRow], pending: [UUID: PendingChange]) -> [StoreRow] {
        var seen: Set<UUID> = []
        var result: [StoreRow] = []
        for id in ids where seen.insert(id).inserted {
            if let change = pending[id] {
                if let row = change.visibleRow { result.append(row) }
            } else if let row = stored[id] {
                result.append(row)
            }
        }
        return result
    }

    /// Throws unless the store is initialized (for the inlinable entry points).
    @usableFromInline
    func checkInitialized() throws(StoreError) {
        try context.checkReady()
    }

    /// Records new rows (in ID order) and applies the save option: straight to the store when nothing is pending
    /// on the way, through the change sets otherwise.
    @usableFromInline
    func insert(_ rows: [StoreRow], entity: EntityDescription, options: SaveOption) async throws(StoreError) {
        if try await commitInsertsDirectly(rows, entity: entity, options: options) { return }
        try await recordAndSave(options) { $0.recordInserts(rows, entity: entity) }
    }

    /// Records changes in this service's level, without saving.
    func recordChanges(_ body: (inout ChangeSet) -> Void) {
        context.tree.withLock { tree in
            var changes = tree.levels[level] ?? ChangeSet()
            body(&changes)
            tree.levels[level] = changes
        }
    }

    /// The fast path for creates that go straight to the store: when nothing is pending from this service up to
    /// the root, the new rows (already in ID order, since IDs increase) are committed as one batch without passing
    /// through the change sets. The outcome is the same as recording them and saving: on failure they are left
    /// pending in this service, as a failed save leaves its changes.
    ///
    /// - Returns: `false` when the fast path does not apply and nothing was done.
    func commitInsertsDirectly(
        _ rows: [StoreRow],
        entity: EntityDescription,
        options: SaveOption
    ) async throws(StoreError) -> Bool {
        guard options.reachesStore(fromDepth: depth) else { return false }
        let clear = context.tree.withLock { tree in
            ancestry.allSatisfy { tree.levels[$0]?.isEmpty ?? true }
        }
        guard clear else { return false }
        let batch = ChangeBatch(entities: [EntityChanges(entity: entity, inserts: rows)])
        let span = startSpan(committing: batch, option: options)
        do throws(StoreError) {
            try await context.backend.apply(batch)
            span?.end()
            return true
        } catch {
            recordChanges { $0.recordInserts(rows, entity: entity) }
            span?.fail(error)
            throw error
        }
    }

    /// Applies a save option to everything pending in this service.
    func save(_ option: SaveOption) async throws(StoreError) {
        try await recordAndSave(option) { _ in }
    }

    /// What a save does once its changes are recorded and taken.
    enum SaveStep {
        /// Nothing more: the save stayed in memory, or there was nothing to write and nothing in flight.
        case done
        /// Nothing of this call's to write: wait for the commits taken before it.
        case wait(ticket: Int)
        /// Commit `changes`, taken from the levels in `taken` (to give back if the commit fails).
        case commit(ticket: Int, changes: ChangeSet, taken: [(level: Int, changes: ChangeSet)])
    }

    /// Records a call's changes in this service's level and applies the save option, in one critical section:
    /// no other service's commit can take the changes between the two, so the commit that carries them is this
    /// call's own, and the call returns only when it has ended.
    ///
    /// - ``SaveOption/saveCurrentOnly`` in a child saves its changes into the parent, column by column, with
    ///   conflicts against the parent's pending changes resolved by the merge policy.
    /// - A save that reaches the store saves each level into the one above it the same way and takes the result
    ///   off every level as one commit. When the commit fails, each level gets back what was taken from it (in
    ///   front of anything recorded meanwhile), as if the save had not happened, and the error is this call's.
    ///
    /// - Throws: ``StoreError/Code/conflict`` under ``MergePolicy/error`` when a level conflicts with the one above
    ///   it (nothing moves; the call's changes stay pending in this service), or the commit's error.
    func recordAndSave(_ option: SaveOption, _ record: (inout ChangeSet) -> Void) async throws(StoreError) {
        let commits = context.commits
        switch try take(option, record) {
        case .done:
            return
        case .wait(let ticket):
            await commits.waitForTurn(ticket)
            commits.finish(ticket)
        case .commit(let ticket, let changes, let taken):
            let batch = changes.batch()
            let span = startSpan(committing: batch, option: option)
            await commits.waitForTurn(ticket)
            defer { commits.finish(ticket) }
            do throws(StoreError) {
                try await write(batch, of: changes, span: span)
                endCommit(ticket, giveBack: nil)
                span?.end()
            } catch {
                endCommit(ticket, giveBack: taken)
                span?.fail(error)
                throw error
            }
        }
    }

    /// The critical section of ``recordAndSave(_:_:)``: records the call's changes, moves them as `option` says, and
    /// takes what a save that reaches the store commits, with its ticket.
    func take(_ option: SaveOption, _ record: (inout ChangeSet) -> Void) throws(StoreError) -> SaveStep {
        let policy = context.mergePolicy
        let commits = context.commits
        return try context.tree.withLock { tree throws(StoreError) -> SaveStep in
            var own = tree.levels[level] ?? ChangeSet()
            record(&own)
            tree.levels[level] = own
            switch option {
            case .dontSave:
                return .done
            case .saveCurrentOnly where ancestry.count > 1:
                guard !own.isEmpty else { return .done }
                let parentLevel = ancestry[ancestry.count - 2]
                tree.levels[parentLevel] = try (tree.levels[parentLevel] ?? ChangeSet()).absorbing(own, policy: policy)
                tree.levels[level] = ChangeSet()
                return .done
            case .saveCurrentOnly, .saveAndPersist:
                var taken: [(level: Int, changes: ChangeSet)] = []
                var changes = ChangeSet()
                for id in ancestry.reversed() {
                    let pending = tree.levels[id] ?? ChangeSet()
                    guard !pending.isEmpty else { continue }
                    taken.append((id, pending))
                    changes = try pending.absorbing(changes, policy: policy)
                }
                guard !changes.isEmpty else {
                    return commits.isIdle ? .done : .wait(ticket: commits.ticket())
                }
                for part in taken { tree.levels[part.level] = ChangeSet() }
                let ticket = commits.ticket()
                tree.inFlight[ticket] = changes.committedView()
                return .commit(ticket: ticket, changes: changes, taken: taken)
            }
        }
    }

    /// Ends a commit: readers stop seeing its changes as in flight and, when it failed, each level gets back what
    /// was taken from it, in front of anything recorded meanwhile.
    func endCommit(_ ticket: Int, giveBack taken: [(level: Int, changes: ChangeSet)]?) {
        context.tree.withLock { tree in
            tree.inFlight[ticket] = nil
            tree.endedCommits &+= 1
            for part in taken ?? [] where tree.levels[part.level] != nil {
                tree.levels[part.level] = part.changes.merged(with: tree.levels[part.level] ?? ChangeSet())
            }
        }
    }

    /// Writes `batch`, the batch of `changes`, resolving conflicts with the merge policy; each conflict the policy
    /// resolves is an event of `span`.
    private func write(_ batch: ChangeBatch, of changes: ChangeSet, span: StoreSpan?) async throws(StoreError) {
        var batch = batch
        var attempts = 0
        while true {
            attempts += 1
            do throws(StoreError) {
                try await context.backend.apply(batch)
                return
            } catch {
                if error.code == .conflict { span?.conflict(records: error.records.count, policy: context.mergePolicy) }
                guard error.code == .conflict, context.mergePolicy != .error, attempts < 8 else { throw error }
                let conflicts = Set(error.records)
                var current: [UUID: StoreRow] = [:]
                for (entity, ids) in Self.byEntity(conflicts, in: changes) {
                    for row in try await context.backend.fetch(ids: ids, of: entity) {
                        current[row.id] = row
                    }
                }
                batch = resolve(batch, conflicts: conflicts, current: current, changes: changes)
            }
        }
    }

    /// The conflicting record IDs grouped by the entity that holds their change.
    static func byEntity(_ conflicts: Set<UUID>, in changes: ChangeSet) -> [(EntityDescription, [UUID])] {
        var byEntity: [String: (EntityDescription, [UUID])] = [:]
        for id in conflicts {
            guard let entity = changes.entity(holding: id) else { continue }
            byEntity[entity.name, default: (entity, [])].1.append(id)
        }
        return Array(byEntity.values)
    }

    /// The batch to try next under the merge policy, given the stored rows of the conflicting records.
    func resolve(
        _ batch: ChangeBatch,
        conflicts: Set<UUID>,
        current: [UUID: StoreRow],
        changes: ChangeSet
    ) -> ChangeBatch {
        var originals: [UUID: [Int: StoreValue]] = [:]
        for entry in changes.entries.values {
            for id in conflicts {
                if case .update(_, _, let original)? = entry.changes[id] { originals[id] = original }
            }
        }
        return context.mergePolicy.resolve(batch, conflicts: conflicts, current: current, originals: originals)
    }
}
