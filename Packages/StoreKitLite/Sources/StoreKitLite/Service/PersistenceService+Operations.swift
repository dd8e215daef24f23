public import ModelKit

extension PersistenceService {
    // MARK: - Create

    /// Creates one record: a blank record with a new permanent ID is passed to `initializer` to fill in.
    ///
    /// Inlinable, so that filling in the record and reading its columns are specialized for the record type.
    ///
    /// - Returns: the created record (its ID is permanent at once).
    /// - Throws: ``StoreError/Code/idChanged`` when the initializer changed the ID; save errors.
    @inlinable
    @discardableResult
    nonisolated(nonsending) public func create<R: Record>(
        _ type: R.Type = R.self,
        options: SaveOption,
        initializer: (inout R) -> Void
    ) async throws(StoreError) -> R {
        try checkInitialized()
        let record = try newRecord(initializer: initializer)
        try await insert([R.schema.row(of: record, revision: 0)], entity: R.schema.entity, options: options)
        return record
    }

    /// A blank record with a new permanent ID, filled in by `initializer`.
    ///
    /// - Throws: ``StoreError/Code/idChanged`` when the initializer changed the ID.
    @inlinable
    func newRecord<R: Record>(initializer: (inout R) -> Void) throws(StoreError) -> R {
        let id = ModelID<R>()
        var record = R(id: id)
        initializer(&record)
        guard record.id == id else {
            throw StoreError(.idChanged, entity: R.schema.entity.name, records: [id.uuid])
        }
        return record
    }

    /// Creates one record per element of `sources`, each filled in by `transform`.
    ///
    /// Inlinable, so that the loop over `sources` and the column reads are specialized for the caller's types.
    ///
    /// - Returns: the new IDs, in the order of `sources`.
    @inlinable
    @discardableResult
    nonisolated(nonsending) public func create<R: Record, Source>(
        _ type: R.Type = R.self,
        from sources: some Sequence<Source>,
        options: SaveOption,
        transform: (Source, inout R) -> Void
    ) async throws(StoreError) -> [ModelID<R>] {
        try checkInitialized()
        let (ids, rows) = try newRows(from: sources, transform: transform)
        try await insert(rows, entity: R.schema.entity, options: options)
        return ids
    }

    /// New records, one per source, filled in by `transform`, as rows in ID order.
    @inlinable
    func newRows<R: Record, Source>(
        from sources: some Sequence<Source>,
        transform: (Source, inout R) -> Void
    ) throws(StoreError) -> ([ModelID<R>], [StoreRow]) {
        let schema = R.schema
        var ids: [ModelID<R>] = []
        var rows: [StoreRow] = []
        ids.reserveCapacity(sources.underestimatedCount)
        rows.reserveCapacity(sources.underestimatedCount)
        for source in sources {
            let id = ModelID<R>()
            var record = R(id: id)
            transform(source, &record)
            guard record.id == id else {
                throw StoreError(.idChanged, entity: schema.entity.name, records: [id.uuid])
            }
            ids.append(id)
            rows.append(schema.row(of: record, revision: 0))
        }
        return (ids, rows)
    }

    /// Inserts records that already have their IDs: copies of records from elsewhere (an offline copy of a
    /// server's data, an import), where the ID must be kept. The IDs must be new to the store; an ID that is
    /// already stored fails the save with ``StoreError/Code/duplicateRecord`` and nothing of the batch is written.
    ///
    /// - Returns: the number of records inserted.
    @discardableResult
    nonisolated(nonsending) public func insert<R: Record>(
        _ records: some Sequence<R>,
        options: SaveOption
    ) async throws(StoreError) -> Int {
        try checkInitialized()
        let schema = R.schema
        let rows = records.map { schema.row(of: $0, revision: 0) }
        guard Set(rows.map(\.id)).count == rows.count else {
            throw StoreError(.duplicateRecord, entity: schema.entity.name, detail: "the same ID is inserted twice")
        }
        try await insert(rows, entity: schema.entity, options: options)
        return rows.count
    }

    // MARK: - Read

    /// Fetches matching records (a read-only copy: changing them changes nothing stored).
    @inlinable
    nonisolated(nonsending) public func fetch<R: Record>(
        _ query: Query<R> = Query<R>()
    ) async throws(StoreError) -> [R] {
        try await records(for: query)
    }

    /// Fetches every record of a type: `fetch(Vehicle.self)`.
    @inlinable
    nonisolated(nonsending) public func fetch<R: Record>(_ type: R.Type) async throws(StoreError) -> [R] {
        try await records(for: Query<R>())
    }

    /// Fetches matching records and maps each to a plain value in one step.
    ///
    /// `transform` runs in the caller's isolation. When the read runs on the calling thread (a query with a limit,
    /// on a ``SynchronousStoreBackend``, with nothing unsaved pending for the entity), each record is transformed as
    /// soon as it is decoded, without an array of records in between; otherwise the records are fetched first and
    /// then transformed. Either way the result is the same; when a stored value
    /// cannot be decoded the fetch throws ``StoreError/Code/corruptValue``, and `transform` may already have been
    /// called for the records before it.
    @inlinable
    nonisolated(nonsending) public func fetch<R: Record, T>(
        _ query: Query<R> = Query<R>(),
        transform: (R) -> T
    ) async throws(StoreError) -> [T] {
        let schema = R.schema
        let rowQuery = query.rowQuery
        return try await StoreSpan.runAsync(startSpan(fetching: rowQuery), rows: { $0.count }) {
            (span) async throws(StoreError) -> [T] in
            if let backend = try callingThreadBackend(for: rowQuery) {
                span?.ranOnCallingThread(true)
                return try backend.fetchOnCallingThread(rowQuery) { cursor throws(StoreError) in
                    try schema.records(from: cursor, transform: transform)
                }
            }
            span?.ranOnCallingThread(false)
            return try await read(rowQuery) { cursor throws(StoreError) in try schema.records(from: cursor) }
                .map(transform)
        }
    }

    /// Fetches matching records and hands them, immutable, to `process`; returns what it returns.
    @inlinable
    nonisolated(nonsending) public func fetchReadOnly<R: Record, Result>(
        _ query: Query<R> = Query<R>(),
        process: ([R]) -> Result
    ) async throws(StoreError) -> Result {
        process(try await records(for: query))
    }

    /// Fetches records by ID, in the order of `ids`; missing and deleted IDs are skipped.
    @inlinable
    nonisolated(nonsending) public func fetch<R: Record>(ids: [ModelID<R>]) async throws(StoreError) -> [R] {
        let schema = R.schema
        let rows = try await rows(ids: ids.map(\.uuid), entity: schema.entity)
        return try decode(rows, schema)
    }

    /// Fetches records by ID and hands them, immutable, to `process`.
    @inlinable
    nonisolated(nonsending) public func fetchReadOnly<R: Record, Result>(
        ids: [ModelID<R>],
        process: ([R]) -> Result
    ) async throws(StoreError) -> Result {
        process(try await fetch(ids: ids))
    }

    /// The number of matching records, counted by the store (`SELECT COUNT(*)` on SQLite) and overlaid with the
    /// unsaved changes this service sees; no record is fetched or decoded.
    nonisolated(nonsending) public func count<R: Record>(_ query: Query<R> = Query<R>()) async throws(StoreError) -> Int
    {
        try await count(for: query.rowQuery)
    }

    /// The number of records of a type: `count(Vehicle.self)`.
    nonisolated(nonsending) public func count<R: Record>(_ type: R.Type) async throws(StoreError) -> Int {
        try await count(for: Query<R>().rowQuery)
    }

    // MARK: - Update

    /// Fetches matching records for writing: `process` changes them in place and returns how to save.
    ///
    /// Only changed columns are written. Records must not be added, removed or given another ID.
    ///
    /// - Returns: the number of records that changed.
    /// - Throws: ``StoreError/Code/idChanged`` (nothing recorded); save errors.
    @discardableResult
    nonisolated(nonsending) public func update<R: Record>(
        _ query: Query<R> = Query<R>(),
        process: (inout [R]) -> SaveOption
    ) async throws(StoreError) -> Int {
        let rows = try await rows(for: query.rowQuery)
        return try await update(rows: rows, process: process)
    }

    /// Fetches records by ID for writing: `process` changes them in place and returns how to save.
    @discardableResult
    nonisolated(nonsending) public func update<R: Record>(
        ids: [ModelID<R>],
        process: (inout [R]) -> SaveOption
    ) async throws(StoreError) -> Int {
        let rows = try await rows(ids: ids.map(\.uuid), entity: R.schema.entity)
        return try await update(rows: rows, process: process)
    }

    nonisolated(nonsending) private func update<R: Record>(
        rows: [StoreRow],
        process: (inout [R]) -> SaveOption
    ) async throws(StoreError) -> Int {
        let (option, newRows) = try updatedRows(rows, process: process)
        var changed = 0
        try await recordAndSave(option) { changed = Self.recordUpdates(from: rows, to: newRows, of: R.schema, in: &$0) }
        return changed
    }

    /// Hands the records of `rows` to `process` and returns the save option it chose and the rows it left.
    ///
    /// - Throws: ``StoreError/Code/idChanged`` when `process` added, removed or re-identified records.
    func updatedRows<R: Record>(
        _ rows: [StoreRow],
        process: (inout [R]) -> SaveOption
    ) throws(StoreError) -> (SaveOption, [StoreRow]) {
        let schema = R.schema
        var records = try decode(rows, schema)
        let option = process(&records)
        guard records.count == rows.count else {
            throw StoreError(.idChanged, entity: schema.entity.name, detail: "the update added or removed records")
        }
        let changedIDs = zip(rows, records).filter { $0.id != $1.id.uuid }.map(\.0.id)
        guard changedIDs.isEmpty else {
            throw StoreError(.idChanged, entity: schema.entity.name, records: changedIDs)
        }
        return (option, records.map { schema.row(of: $0, revision: 0) })
    }

    /// Records the differences between rows as read and as updated; returns how many records changed.
    static func recordUpdates<R: Record>(
        from rows: [StoreRow],
        to newRows: [StoreRow],
        of schema: RecordSchema<R>,
        in changes: inout ChangeSet
    ) -> Int {
        var changed = 0
        for (old, new) in zip(rows, newRows) where old.values != new.values {
            changed += 1
            changes.recordUpdate(from: old, to: new, entity: schema.entity)
        }
        return changed
    }

    // MARK: - Delete

    /// Deletes matching records.
    ///
    /// - Returns: the number of records deleted.
    @discardableResult
    public func delete<R: Record>(_ query: Query<R>, options: SaveOption) async throws(StoreError) -> Int {
        let rows = try await rows(for: query.rowQuery)
        return try await delete(rows: rows, entity: R.schema.entity, options: options)
    }

    /// Deletes records by ID; missing IDs are skipped.
    ///
    /// - Returns: the number of records deleted.
    @discardableResult
    public func delete<R: Record>(ids: [ModelID<R>], options: SaveOption) async throws(StoreError) -> Int {
        let rows = try await rows(ids: ids.map(\.uuid), entity: R.schema.entity)
        return try await delete(rows: rows, entity: R.schema.entity, options: options)
    }

    private func delete(
        rows: [StoreRow],
        entity: EntityDescription,
        options: SaveOption
    ) async throws(StoreError)
        -> Int
    {
        try await recordAndSave(options) { Self.recordDeletes(of: rows, entity: entity, in: &$0) }
        return rows.count
    }

    static func recordDeletes(of rows: [StoreRow], entity: EntityDescription, in changes: inout ChangeSet) {
        for row in rows {
            changes.record(.delete(row), id: row.id, entity: entity)
        }
    }

    // MARK: - Save and rollback

    /// Applies a save option to everything pending in this service.
    public func saveAll(_ options: SaveOption) async throws(StoreError) {
        try context.checkReady()
        try await save(options)
    }

    /// Discards this service's unsaved changes (not those already saved into its parent).
    public func rollback() {
        recordChanges { $0 = ChangeSet() }
    }

    // MARK: - Helpers

    /// Matching records, decoded straight from the backend's cursor: on the calling thread for a short read on a
    /// ``SynchronousStoreBackend`` (see ``callingThreadBackend(for:)``), from the rows overlaid with unsaved changes
    /// when there are any.
    @inlinable
    nonisolated(nonsending) func records<R: Record>(for query: Query<R>) async throws(StoreError) -> [R] {
        let schema = R.schema
        let rowQuery = query.rowQuery
        return try await StoreSpan.runAsync(startSpan(fetching: rowQuery), rows: { $0.count }) {
            (span) async throws(StoreError) -> [R] in
            if let backend = try callingThreadBackend(for: rowQuery) {
                span?.ranOnCallingThread(true)
                return try backend.fetchOnCallingThread(rowQuery) { cursor throws(StoreError) in
                    try schema.records(from: cursor)
                }
            }
            span?.ranOnCallingThread(false)
            return try await read(rowQuery) { cursor throws(StoreError) in try schema.records(from: cursor) }
        }
    }

    @inlinable
    func decode<R: Record>(_ rows: [StoreRow], _ schema: RecordSchema<R>) throws(StoreError) -> [R] {
        var records: [R] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            records.append(try schema.record(from: row))
        }
        return records
    }
}
