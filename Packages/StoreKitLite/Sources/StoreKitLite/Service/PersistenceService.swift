public import Tracing

/// A persistence service: a unit of work over a store, with Core Data's semantics on value-type records.
///
/// The root service owns a ``StoreBackend``; child services made with ``makeChild()`` stack on it like nested
/// managed object contexts. Every service keeps its own pending changes; every mutating call takes a
/// ``SaveOption`` saying how far its changes go. Reads see the store overlaid with the unsaved changes of the
/// service and its ancestors. Nothing holds a database transaction open between calls: the root writes each
/// commit as one short batch.
///
/// Initialization is asynchronous (it creates or migrates the store): ``isInitialized`` turns true when it is
/// done, ``waitUntilInitialized()`` waits for it, and any operation before it fails with
/// ``StoreError/Code/notInitialized``. When initialization fails, every later operation fails with the same error.
///
/// With a tracer (the one the process installed, or one passed to the initializer), operations that reach the store
/// start spans following OpenTelemetry's database conventions; see <doc:Tracing>.
public final class PersistenceService: Sendable {
    let context: StoreContext
    let parent: PersistenceService?
    let level: Int
    /// The levels from the root down to this service.
    let ancestry: [Int]

    /// A root service over `backend`, initializing (creating or migrating the store) in the background.
    ///
    /// - Parameters:
    ///   - model: the record types and their migrations.
    ///   - backend: the store, such as `SQLiteBackend(path:)` or `InMemoryBackend()`.
    ///   - mergePolicy: what commits do on optimistic-concurrency conflicts.
    ///   - tracer: what the hierarchy's operations start spans with: by default the tracer the process installed
    ///     (``installedTracer``, read now); `nil` traces nothing.
    public init(
        model: StoreModel,
        backend: any StoreBackend,
        mergePolicy: MergePolicy = .error,
        tracer: (any Tracer)? = PersistenceService.installedTracer
    ) {
        let context = StoreContext(backend: backend, model: model, mergePolicy: mergePolicy, tracer: tracer)
        self.context = context
        self.parent = nil
        self.level = context.makeLevel()
        self.ancestry = [level]
        Task { await context.initialize() }
    }

    private init(parent: PersistenceService) {
        self.context = parent.context
        self.parent = parent
        self.level = parent.context.makeLevel()
        self.ancestry = parent.ancestry + [level]
    }

    deinit {
        context.removeLevel(level)
    }

    /// A root service that is initialized when it returns.
    ///
    /// - Throws: what initialization failed with, of its own kind: ``StoreError/Code/notADatabase`` (a corrupt or
    ///   foreign file), ``StoreError/Code/newerSchema``, ``StoreError/Code/cannotOpen``,
    ///   ``StoreError/Code/readOnly``, ``StoreError/Code/invalidModel``; ``StoreError/Code/initializationFailed``
    ///   for any other failure of the backend.
    public static func open(
        model: StoreModel,
        backend: any StoreBackend,
        mergePolicy: MergePolicy = .error,
        tracer: (any Tracer)? = PersistenceService.installedTracer
    ) async throws(StoreError) -> PersistenceService {
        let service = PersistenceService(model: model, backend: backend, mergePolicy: mergePolicy, tracer: tracer)
        try await service.waitUntilInitialized()
        return service
    }

    /// Whether the store is created or migrated and ready; a child is initialized when its root is.
    public var isInitialized: Bool {
        context.isInitialized
    }

    /// Waits until initialization finishes.
    ///
    /// - Throws: the error initialization failed with (see ``open(model:backend:mergePolicy:tracer:)``).
    public func waitUntilInitialized() async throws(StoreError) {
        try await context.waitUntilInitialized()
    }

    /// A child service: its saves with ``SaveOption/saveCurrentOnly`` move its changes into this service.
    ///
    /// Use one per unit of work (a request, a worker, a screen); children can be made before initialization and
    /// are initialized when their root is.
    public func makeChild() -> PersistenceService {
        PersistenceService(parent: self)
    }

    /// How deep the service sits: 0 for the root.
    public var depth: Int {
        ancestry.count - 1
    }

    /// Closes the store under the whole hierarchy: the backend flushes what it has committed and releases its
    /// files and connections. Call it once, after the last operation (a daemon closes its store during graceful
    /// shutdown); unsaved changes of any service are discarded, and later operations on any service of this
    /// hierarchy fail with ``StoreError/Code/notInitialized``.
    public func close() async throws(StoreError) {
        try await context.backend.close()
    }

    /// Whether this service has unsaved changes.
    public var hasChanges: Bool {
        context.tree.withLock { !($0.levels[level]?.isEmpty ?? true) }
    }

    /// A value that changes whenever what this service reads may have changed: it differs from every earlier one
    /// once a commit has reached the store (from this process or from another one on the same file) or a commit of
    /// this hierarchy has ended. Two equal readings mean that a read made after the first still answers as the
    /// store does, so a caller can keep what it read and check it with one call.
    ///
    /// `nil` while this service or an ancestor has unsaved changes (its reads then differ from the store), and on a
    /// backend that answers only asynchronously (not a ``SynchronousStoreBackend``: PostgreSQL, where telling would
    /// take a round trip): the caller then reads again. Runs on the calling thread
    /// (``SynchronousStoreBackend/commitVersion()``) and never waits for a write; for SQLite it reads the header of the write-ahead log's shared index (a few memory loads, on a
    /// connection of its own), falling back to `PRAGMA data_version` when that header cannot be read.
    ///
    /// - Throws: ``StoreError/Code/notInitialized`` before initialization or after ``close()``; what the backend
    ///   reports.
    public func storeVersion() throws(StoreError) -> StoreVersion? {
        try context.checkReady()
        let local = context.tree.withLock { tree -> Int? in
            ancestry.contains { !(tree.levels[$0]?.isEmpty ?? true) } ? nil : tree.endedCommits
        }
        guard let local, let backend = context.synchronous else { return nil }
        return StoreVersion(committed: try backend.commitVersion(), endedCommits: local)
    }
}
