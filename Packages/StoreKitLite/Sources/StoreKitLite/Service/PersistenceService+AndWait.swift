public import ModelKit

/// The synchronous forms (`…AndWait`): each blocks the calling thread until the operation is
/// done. They are unavailable from async contexts; call them from threads you own (a CLI's main thread, a
/// `Thread`, a dispatch queue), never from a task.
///
/// On a ``SynchronousStoreBackend`` (SQLite, memory) they run every step on the calling thread through it: on
/// SQLite, reads on a read-only connection of the backend's own and commits on the writer connection, where the
/// thread waits for the store, never for a task. On another backend they run the async form as a task and wait
/// for it.
extension PersistenceService {
    /// Creates one record and waits. See ``create(_:options:initializer:)``.
    @available(*, noasync, message: "use the async create(_:options:initializer:)")
    @discardableResult
    public func createAndWait<R: Record>(
        _ type: R.Type = R.self,
        options: SaveOption,
        initializer: (inout R) -> Void
    ) throws(StoreError) -> R {
        if let backend = context.synchronous {
            try checkInitialized()
            let record = try newRecord(initializer: initializer)
            try insertBlocking(
                [R.schema.row(of: record, revision: 0)],
                entity: R.schema.entity,
                options: options,
                on: backend
            )
            return record
        }
        return try withoutActuallyEscaping(initializer) { (initializer) throws(StoreError) -> R in
            let body = UncheckedSendable(initializer)
            return try BlockingWait.run { () async throws(StoreError) -> R in
                try await self.create(type, options: options, initializer: body.value)
            }
        }
    }

    /// Creates one record per source and waits. See ``create(_:from:options:transform:)``.
    @available(*, noasync, message: "use the async create(_:from:options:transform:)")
    @discardableResult
    public func createAndWait<R: Record, Source>(
        _ type: R.Type = R.self,
        from sources: [Source],
        options: SaveOption,
        transform: (Source, inout R) -> Void
    ) throws(StoreError) -> [ModelID<R>] {
        if let backend = context.synchronous {
            try checkInitialized()
            let (ids, rows) = try newRows(from: sources, transform: transform)
            try insertBlocking(rows, entity: R.schema.entity, options: options, on: backend)
            return ids
        }
        return try withoutActuallyEscaping(transform) { (transform) throws(StoreError) -> [ModelID<R>] in
            let body = UncheckedSendable((transform, sources))
            return try BlockingWait.run { () async throws(StoreError) -> [ModelID<R>] in
                try await self.create(type, from: body.value.1, options: options, transform: body.value.0)
            }
        }
    }

    /// Fetches and transforms, and waits. See ``fetch(_:transform:)``.
    @available(*, noasync, message: "use the async fetch(_:transform:)")
    public func fetchAndWait<R: Record, T>(
        _ query: Query<R> = Query<R>(),
        transform: (R) -> T
    ) throws(StoreError) -> [T] {
        if let backend = context.synchronous {
            let schema = R.schema
            let rowQuery = query.rowQuery
            return try StoreSpan.run(startSpan(fetching: rowQuery), rows: { $0.count }) {
                (span) throws(StoreError) -> [T] in
                span?.ranOnCallingThread(true)
                return try readBlocking(rowQuery, on: backend) { cursor throws(StoreError) in
                    try schema.records(from: cursor, transform: transform)
                }
            }
        }
        return try withoutActuallyEscaping(transform) { (transform) throws(StoreError) -> [T] in
            let body = UncheckedSendable(transform)
            return try BlockingWait.run { () async throws(StoreError) -> [T] in
                try await self.fetch(query, transform: body.value)
            }
        }
    }

    /// Fetches matching records and waits. See ``fetch(_:)-(Query<R>)``.
    @available(*, noasync, message: "use the async fetch(_:)")
    public func fetchAndWait<R: Record>(_ query: Query<R> = Query<R>()) throws(StoreError) -> [R] {
        if let backend = context.synchronous {
            let schema = R.schema
            let rowQuery = query.rowQuery
            return try StoreSpan.run(startSpan(fetching: rowQuery), rows: { $0.count }) {
                (span) throws(StoreError) -> [R] in
                span?.ranOnCallingThread(true)
                return try readBlocking(rowQuery, on: backend) { cursor throws(StoreError) in
                    try schema.records(from: cursor)
                }
            }
        }
        return try BlockingWait.run { () async throws(StoreError) -> [R] in try await self.fetch(query) }
    }

    /// Fetches records by ID and waits. See ``fetch(ids:)``.
    @available(*, noasync, message: "use the async fetch(ids:)")
    public func fetchAndWait<R: Record>(ids: [ModelID<R>]) throws(StoreError) -> [R] {
        if let backend = context.synchronous {
            return try decode(try rowsBlocking(ids: ids.map(\.uuid), entity: R.schema.entity, on: backend), R.schema)
        }
        return try BlockingWait.run { () async throws(StoreError) -> [R] in try await self.fetch(ids: ids) }
    }

    /// Fetches matching records for processing and waits. See ``fetchReadOnly(_:process:)``.
    @available(*, noasync, message: "use the async fetchReadOnly(_:process:)")
    public func fetchReadOnlyAndWait<R: Record, Result>(
        _ query: Query<R> = Query<R>(),
        process: ([R]) -> Result
    ) throws(StoreError) -> Result {
        let records = try fetchAndWait(query)
        return process(records)
    }

    /// Fetches records by ID for processing and waits. See ``fetchReadOnly(ids:process:)``.
    @available(*, noasync, message: "use the async fetchReadOnly(ids:process:)")
    public func fetchReadOnlyAndWait<R: Record, Result>(
        ids: [ModelID<R>],
        process: ([R]) -> Result
    ) throws(StoreError) -> Result {
        let records = try fetchAndWait(ids: ids)
        return process(records)
    }

    /// Counts matching records and waits. See ``count(_:)-(Query<R>)``.
    @available(*, noasync, message: "use the async count(_:)")
    public func countAndWait<R: Record>(_ query: Query<R>) throws(StoreError) -> Int {
        if let backend = context.synchronous {
            return try countBlocking(for: query.rowQuery, on: backend)
        }
        return try BlockingWait.run { () async throws(StoreError) -> Int in try await self.count(query) }
    }

    /// Counts the records of a type and waits: `countAndWait(Vehicle.self)`.
    @available(*, noasync, message: "use the async count(_:)")
    public func countAndWait<R: Record>(_ type: R.Type) throws(StoreError) -> Int {
        try countAndWait(Query<R>())
    }

    /// Updates matching records and waits. See ``update(_:process:)``.
    @available(*, noasync, message: "use the async update(_:process:)")
    @discardableResult
    public func updateAndWait<R: Record>(
        _ query: Query<R> = Query<R>(),
        process: (inout [R]) -> SaveOption
    ) throws(StoreError) -> Int {
        if let backend = context.synchronous {
            return try updateBlocking(
                rows: try rowsBlocking(for: query.rowQuery, on: backend),
                process: process,
                on: backend
            )
        }
        return try withoutActuallyEscaping(process) { (process) throws(StoreError) -> Int in
            let body = UncheckedSendable(process)
            return try BlockingWait.run { () async throws(StoreError) -> Int in
                try await self.update(query, process: body.value)
            }
        }
    }

    /// Updates records by ID and waits. See ``update(ids:process:)``.
    @available(*, noasync, message: "use the async update(ids:process:)")
    @discardableResult
    public func updateAndWait<R: Record>(
        ids: [ModelID<R>],
        process: (inout [R]) -> SaveOption
    ) throws(StoreError) -> Int {
        if let backend = context.synchronous {
            let rows = try rowsBlocking(ids: ids.map(\.uuid), entity: R.schema.entity, on: backend)
            return try updateBlocking(rows: rows, process: process, on: backend)
        }
        return try withoutActuallyEscaping(process) { (process) throws(StoreError) -> Int in
            let body = UncheckedSendable(process)
            return try BlockingWait.run { () async throws(StoreError) -> Int in
                try await self.update(ids: ids, process: body.value)
            }
        }
    }

    /// Deletes matching records and waits. See ``delete(_:options:)``.
    @available(*, noasync, message: "use the async delete(_:options:)")
    @discardableResult
    public func deleteAndWait<R: Record>(_ query: Query<R>, options: SaveOption) throws(StoreError) -> Int {
        if let backend = context.synchronous {
            return try deleteBlocking(
                rows: try rowsBlocking(for: query.rowQuery, on: backend),
                entity: R.schema.entity,
                options,
                on: backend
            )
        }
        return try BlockingWait.run { () async throws(StoreError) -> Int in
            try await self.delete(query, options: options)
        }
    }

    /// Deletes records by ID and waits. See ``delete(ids:options:)``.
    @available(*, noasync, message: "use the async delete(ids:options:)")
    @discardableResult
    public func deleteAndWait<R: Record>(ids: [ModelID<R>], options: SaveOption) throws(StoreError) -> Int {
        if let backend = context.synchronous {
            let rows = try rowsBlocking(ids: ids.map(\.uuid), entity: R.schema.entity, on: backend)
            return try deleteBlocking(rows: rows, entity: R.schema.entity, options, on: backend)
        }
        return try BlockingWait.run { () async throws(StoreError) -> Int in
            try await self.delete(ids: ids, options: options)
        }
    }

    /// Applies a save option to everything pending and waits. See ``saveAll(_:)``.
    @available(*, noasync, message: "use the async saveAll(_:)")
    public func saveAllAndWait(_ options: SaveOption) throws(StoreError) {
        if let backend = context.synchronous {
            try context.checkReady()
            try recordAndSaveBlocking(options, on: backend) { _ in }
            return
        }
        try BlockingWait.run { () async throws(StoreError) in try await self.saveAll(options) }
    }

    /// Discards this service's unsaved changes; the synchronous form of ``rollback()`` (rollback never does I/O).
    public func rollbackAndWait() {
        rollback()
    }

    /// Blocks the calling thread until initialization finishes; the synchronous form of
    /// ``waitUntilInitialized()``.
    ///
    /// - Throws: the error initialization failed with.
    @available(*, noasync, message: "use the async waitUntilInitialized()")
    public func blockUntilInitialized() throws(StoreError) {
        try context.waitUntilInitializedBlocking()
    }

    /// Blocks the calling thread until initialization finishes.
    @available(*, deprecated, renamed: "blockUntilInitialized()")
    @available(*, noasync, message: "use the async waitUntilInitialized()")
    public func waitUntilInitializedAndWait() throws(StoreError) {
        try blockUntilInitialized()
    }

    private func updateBlocking<R: Record>(
        rows: [StoreRow],
        process: (inout [R]) -> SaveOption,
        on backend: any SynchronousStoreBackend
    ) throws(StoreError) -> Int {
        let (option, newRows) = try updatedRows(rows, process: process)
        var changed = 0
        try recordAndSaveBlocking(option, on: backend) {
            changed = Self.recordUpdates(from: rows, to: newRows, of: R.schema, in: &$0)
        }
        return changed
    }

    private func deleteBlocking(
        rows: [StoreRow],
        entity: EntityDescription,
        _ options: SaveOption,
        on backend: any SynchronousStoreBackend
    ) throws(StoreError) -> Int {
        try recordAndSaveBlocking(options, on: backend) { Self.recordDeletes(of: rows, entity: entity, in: &$0) }
        return rows.count
    }
}
