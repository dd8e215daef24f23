public import Foundation

/// A store StoreKitLite runs on: SQLite (`StoreKitLiteSQLite`), PostgreSQL (`StoreKitLitePostgres`), memory
/// (`StoreKitLiteTesting`).
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
///   store revision 1, updates bump the revision by one.
/// - ``fetch(_:)`` runs a ``RowQuery`` with exactly the semantics of ``RowQuery/apply(to:)`` (three-valued logic,
///   SQLite's ordering, ties by ID), with values bound as parameters, never spliced into query text.
/// - ``fetch(_:reading:)`` runs the same query and hands its rows to a closure through a ``StoreCursor`` instead of
///   returning them, so records are decoded straight from the result (the hot read path). The closure is called
///   once, and the cursor must give exactly the rows, order, revisions and values ``fetch(_:)`` returns. The
///   default fetches the rows and reads them from memory; an engine with a result cursor reads from it directly.
/// - ``fetchOnCallingThread(_:reading:)`` does what ``fetch(_:reading:)`` does, synchronously on the calling
///   thread, when the backend can read without waiting for a write or for another read; otherwise it returns `nil`
///   having done nothing. The reading closure then runs in the caller's isolation, so the service decodes and
///   transforms records in one pass. The default returns `nil`. ``fetchOnCallingThread(ids:of:)`` is the same
///   for ``fetch(ids:of:)`` (a read by primary key, where the hop to a reader queue costs more than the read).
/// - ``count(_:excluding:)`` counts the rows ``fetch(_:)`` would return if the rows with the given IDs were not
///   stored, without fetching them (an SQL backend runs `COUNT(*)` with the predicate pushed down). Sort keys do
///   not matter; offset and limit apply as ``RowQuery/slicedCount(_:)`` does. The default fetches and counts.
/// - ``fetch(ids:of:)`` returns the stored rows for the IDs that exist, in any order.
/// - ``committedChanges()`` delivers every batch this backend committed, once per commit, after the commit.
/// - The blocking forms ``fetchBlocking(_:)``, ``fetchBlocking(_:reading:)``, ``fetchBlocking(ids:of:)``,
///   ``countBlocking(_:excluding:)`` and ``applyBlocking(_:)`` do what their async forms do on the calling thread,
///   waiting there for as long as the store needs (never for a task); the service's `…AndWait` methods use them.
///   The defaults return `nil` (`false` for ``applyBlocking(_:)``) having done nothing, and the service then runs
///   the async form and waits for it.
/// - ``close()`` flushes and releases the store once the caller is done with it (a daemon shutting down); later
///   operations fail with ``StoreError/Code/notInitialized``. The default does nothing, for stores that hold
///   nothing to release.
///
/// `BackendConformance` in `StoreKitLiteTesting` checks all of this; run it for every new backend.
public protocol StoreBackend: Sendable {
    /// Opens or creates the store and applies pending migrations.
    func migrate(to model: StoreModel) async throws(StoreError)
    /// Writes a batch atomically.
    func apply(_ batch: ChangeBatch) async throws(StoreError)
    /// Runs a query.
    func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow]
    /// Runs a query and hands its rows, through a cursor valid only during the call, to `read`.
    func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result
    /// Runs a query on the calling thread and hands its rows, through a cursor valid only during the call, to
    /// `read`; `nil`, having done nothing, when the backend cannot read now without waiting for a write or another
    /// read (the caller then uses ``fetch(_:reading:)``).
    func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result?
    /// Fetches rows by ID on the calling thread; `nil`, having done nothing, when the backend cannot read now
    /// without waiting for a write or another read (the caller then uses ``fetch(ids:of:)``).
    func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]?
    /// Counts the rows `fetch(query)` would return if the rows with the IDs in `excluded` were not stored.
    func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int
    /// Fetches rows by ID.
    func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow]
    /// Runs a query on the calling thread, waiting there; `nil` when the backend has no blocking form.
    func fetchBlocking(_ query: RowQuery) throws(StoreError) -> [StoreRow]?
    /// Runs a query on the calling thread, waiting there, and hands its rows to `read`; `nil` when the backend has
    /// no blocking form.
    func fetchBlocking<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result?
    /// Fetches rows by ID on the calling thread, waiting there; `nil` when the backend has no blocking form.
    func fetchBlocking(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]?
    /// Counts on the calling thread, waiting there; `nil` when the backend has no blocking form.
    func countBlocking(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int?
    /// Whether the blocking forms are implemented (the service's `…AndWait` methods then use them).
    var supportsBlockingAccess: Bool { get }
    /// Writes a batch atomically on the calling thread, waiting there; `false`, having written nothing, when the
    /// backend has no blocking form.
    func applyBlocking(_ batch: ChangeBatch) throws(StoreError) -> Bool
    /// A stream of committed batches, starting now.
    func committedChanges() -> AsyncStream<ChangeBatch>
    /// A number that differs from every earlier one once a commit has reached the store, by this backend or by any
    /// other process; read on the calling thread without waiting for a write. `nil` when the backend cannot tell
    /// that cheaply (a caller then assumes that anything may have changed).
    func commitVersion() throws(StoreError) -> Int64?
    /// Flushes and releases the store; later operations fail with ``StoreError/Code/notInitialized``.
    func close() async throws(StoreError)
}

extension StoreBackend {
    /// Does nothing: a store with nothing to flush or release.
    public func close() async throws(StoreError) {}

    /// Returns `nil`: a backend tells when commits happened only when it says so.
    public func commitVersion() throws(StoreError) -> Int64? {
        nil
    }

    /// Fetches the rows and reads them from memory: correct for any backend, but it builds every ``StoreRow``.
    public func fetch<Result: Sendable>(
        _ query: RowQuery,
        reading read: @escaping @Sendable (any StoreCursor) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try read(FetchedRowsCursor(try await fetch(query)))
    }

    /// Returns `nil`: a backend reads on the calling thread only when it says so.
    public func fetchOnCallingThread<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        nil
    }

    /// Returns `nil`: a backend reads on the calling thread only when it says so.
    public func fetchOnCallingThread(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]? {
        nil
    }

    /// Returns `nil`: no blocking form unless the backend has one.
    public func fetchBlocking(_ query: RowQuery) throws(StoreError) -> [StoreRow]? {
        nil
    }

    /// Reads the rows of ``fetchBlocking(_:)`` from memory; `nil` when it has no blocking form.
    public func fetchBlocking<Result>(
        _ query: RowQuery,
        reading read: (any StoreCursor) throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        guard let rows = try fetchBlocking(query) else { return nil }
        return try read(FetchedRowsCursor(rows))
    }

    /// Returns `nil`: no blocking form unless the backend has one.
    public func fetchBlocking(ids: [UUID], of entity: EntityDescription) throws(StoreError) -> [StoreRow]? {
        nil
    }

    /// Counts the rows of ``fetchBlocking(_:)`` that are not excluded; `nil` when it has no blocking form.
    public func countBlocking(_ query: RowQuery, excluding excluded: [UUID]) throws(StoreError) -> Int? {
        var unsliced = query
        unsliced.sortKeys = []
        unsliced.limit = nil
        unsliced.offset = 0
        guard let rows = try fetchBlocking(unsliced) else { return nil }
        let skipped = Set(excluded)
        return query.slicedCount(rows.count(where: { !skipped.contains($0.id) }))
    }

    /// `false`: no blocking forms unless the backend says so.
    public var supportsBlockingAccess: Bool { false }

    /// Returns `false`: no blocking form unless the backend has one.
    public func applyBlocking(_ batch: ChangeBatch) throws(StoreError) -> Bool {
        false
    }

    /// Fetches the matching rows and counts those not excluded: correct for any backend, but it reads every row.
    public func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        var unsliced = query
        unsliced.sortKeys = []
        unsliced.limit = nil
        unsliced.offset = 0
        let rows = try await fetch(unsliced)
        guard !excluded.isEmpty else { return query.slicedCount(rows.count) }
        let skipped = Set(excluded)
        return query.slicedCount(rows.count(where: { !skipped.contains($0.id) }))
    }
}
