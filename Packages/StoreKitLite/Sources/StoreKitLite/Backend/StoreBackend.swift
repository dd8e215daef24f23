public import Foundation

/// A store StoreKitLite runs on: SQLite (`StoreKitLiteSQLite`), PostgreSQL (`StoreKitLitePostgres`), memory
/// (`StoreKitLiteTesting`).
///
/// Every backend implements this protocol: its operations are `async`, and the calling task suspends while the
/// store works (a network round trip, a dispatch queue of the backend's own). A backend that can also answer on
/// the calling thread, without suspending, adopts the refinement ``SynchronousStoreBackend`` as well; a
/// ``PersistenceService`` then runs short reads there. The types say which backend can do what: there is no
/// optional result meaning "cannot" and no capability flag.
///
/// The protocol is batch-level, so a backend never holds a transaction open between calls and needs no knowledge
/// of services, hierarchies or save options:
///
/// - ``migrate(to:)`` opens or creates the store and applies the model's pending migrations, in order, each named
///   migration exactly once; a store that has applied a migration the model does not know fails with
///   ``StoreError/Code/newerSchema`` and is left untouched.
/// - ``apply(_:)`` writes a ``ChangeBatch`` in one transaction: all of it or, on any error, none of it. Updates
///   and deletes that check revisions must find the revision they were read at; every mismatch is collected and
///   reported in one ``StoreError/Code/conflict`` error naming all conflicting records (nothing written). Inserts
///   store revision 1, updates bump the revision by one. A call returns once its batch is durable (as durable as
///   the backend is configured to make it); concurrent calls may share one transaction and one sync to disk, but
///   each succeeds or fails on its own.
/// - ``fetch(_:)`` runs a ``RowQuery`` with exactly the semantics of ``RowQuery/apply(to:)`` (three-valued logic,
///   SQLite's ordering, ties by ID), with values bound as parameters, never spliced into query text.
/// - ``fetch(_:reading:)`` runs the same query and hands its rows to a closure through a ``StoreCursor`` instead of
///   returning them, so records are decoded straight from the result. The closure is called once, and the cursor
///   must give exactly the rows, order, revisions and values ``fetch(_:)`` returns. The default fetches the rows
///   and reads them from memory; an engine with a result cursor reads from it directly.
/// - ``count(_:excluding:)`` counts the rows ``fetch(_:)`` would return if the rows with the given IDs were not
///   stored, without fetching them (an SQL backend runs `COUNT(*)` with the predicate pushed down). Sort keys do
///   not matter; offset and limit apply as ``RowQuery/slicedCount(_:)`` does. The default fetches and counts.
/// - ``fetch(ids:of:)`` returns the stored rows for the IDs that exist, in any order.
/// - ``committedChanges()`` delivers every batch this backend committed, once per commit, after the commit.
/// - ``close()`` flushes and releases the store once the caller is done with it (a daemon shutting down); later
///   operations fail with ``StoreError/Code/notInitialized``. The default does nothing, for stores that hold
///   nothing to release.
/// - ``migrate(to:recording:)`` is ``migrate(to:)`` with each migration it applies run through a
///   ``MigrationRecorder``, so that a traced service shows one span per migration. The default calls
///   ``migrate(to:)`` and records nothing per migration.
/// - ``backendDescription`` names the database system for traces. The default is
///   ``BackendDescription/otherSQL``.
///
/// `BackendConformance` in `StoreKitLiteTesting` checks all of this; run it for every new backend.
public protocol StoreBackend: Sendable {
    /// Opens or creates the store and applies pending migrations.
    func migrate(to model: StoreModel) async throws(StoreError)
    /// Opens or creates the store and applies pending migrations, each through `recorder`.
    func migrate(to model: StoreModel, recording recorder: MigrationRecorder) async throws(StoreError)
    /// Writes a batch atomically and returns once it is durable.
    func apply(_ batch: ChangeBatch) async throws(StoreError)
    /// Runs a query.
    func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow]
    /// Runs a query and hands its rows, through a cursor valid only during the call, to `read`.
    func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result
    /// Counts the rows `fetch(query)` would return if the rows with the IDs in `excluded` were not stored.
    func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int
    /// Fetches rows by ID.
    func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow]
    /// A stream of committed batches, starting now.
    func committedChanges() -> AsyncStream<ChangeBatch>
    /// Flushes and releases the store; later operations fail with ``StoreError/Code/notInitialized``.
    func close() async throws(StoreError)
    /// The database system and namespace traces name.
    var backendDescription: BackendDescription { get }
}

/// A backend that also answers on the calling thread: SQLite (`SQLiteBackend`) and memory (`InMemoryBackend`).
///
/// Each method does what its `async` counterpart in ``StoreBackend`` does, synchronously, on the thread that calls
/// it, and returns its value: the caller never suspends and no thread hop happens. A method may keep the thread
/// busy for the store's own work (a read from a cold page cache, a commit's sync to disk, a lock held for a few
/// memory operations), never for a task. A ``PersistenceService`` runs the reads that are short by construction
/// here (by ID, a page with a limit, a count), so they cost no hop even on a NIO event loop; it keeps unbounded
/// fetches on the `async` forms. The `…AndWait` forms of the service run every step here.
///
/// - ``fetchOnCallingThread(_:reading:)`` is ``StoreBackend/fetch(_:reading:)``; `read` runs in the caller's
///   isolation, so the service decodes and transforms records in one pass.
/// - ``fetchOnCallingThread(ids:of:)`` is ``StoreBackend/fetch(ids:of:)``.
/// - ``countOnCallingThread(_:excluding:)`` is ``StoreBackend/count(_:excluding:)``.
/// - ``applyOnCallingThread(_:)`` is ``StoreBackend/apply(_:)``: it returns once the batch is durable.
/// - ``commitVersion()`` is a number that differs from every earlier one once a commit has reached the store, by
///   this backend or by any other process; it never waits for a write. ``PersistenceService/storeVersion()`` is
///   built on it.
public protocol SynchronousStoreBackend: StoreBackend {
    /// Runs a query on the calling thread and hands its rows, through a cursor valid only during the call, to
    /// `read`.
    func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result
    /// Fetches rows by ID on the calling thread.
    func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]
    /// Counts on the calling thread the rows `fetch(query)` would return if the rows with the IDs in `excluded`
    /// were not stored.
    func countOnCallingThread(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int
    /// Writes a batch atomically on the calling thread and returns once it is durable.
    func applyOnCallingThread(_ batch: ChangeBatch) throws(StoreError)
    /// A number that differs from every earlier one once a commit has reached the store; read on the calling
    /// thread without waiting for a write.
    func commitVersion() throws(StoreError) -> Int64
}

extension StoreBackend {
    /// Does nothing: a store with nothing to flush or release.
    public func close() async throws(StoreError) {}

    /// Calls ``migrate(to:)``: the migrations are traced together, as one step.
    public func migrate(to model: StoreModel, recording recorder: MigrationRecorder) async throws(StoreError) {
        try await migrate(to: model)
    }

    /// ``BackendDescription/otherSQL``.
    public var backendDescription: BackendDescription { .otherSQL }

    /// Fetches the rows and reads them from memory: correct for any backend, but it builds every ``StoreRow``.
    public func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try read(FetchedRowsCursor(try await fetch(query)))
    }

    /// Fetches the matching rows and counts those not excluded: correct for any backend, but it reads every row.
    public func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        let rows = try await fetch(PersistenceService.unsliced(query))
        guard !excluded.isEmpty else { return query.slicedCount(rows.count) }
        let skipped = Set(excluded)
        return query.slicedCount(rows.count(where: { !skipped.contains($0.id) }))
    }
}

extension SynchronousStoreBackend {
    /// Runs a query on the calling thread and returns its rows.
    public func fetchOnCallingThread(_ query: RowQuery) throws(StoreError) -> [StoreRow] {
        try fetchOnCallingThread(query) { cursor throws(StoreError) in try StoreRow.all(from: cursor) }
    }
}

extension StoreRow {
    /// Every remaining row of `cursor`, built as ``StoreRow``s.
    static func all(from cursor: any StoreCursor) throws(StoreError) -> [StoreRow] {
        var rows: [StoreRow] = []
        while let id = try cursor.next() {
            var values: [StoreValue] = []
            values.reserveCapacity(cursor.columnCount)
            for column in 0..<cursor.columnCount { values.append(cursor.value(at: column)) }
            rows.append(StoreRow(id: id, revision: cursor.revision, values: values))
        }
        return rows
    }
}
