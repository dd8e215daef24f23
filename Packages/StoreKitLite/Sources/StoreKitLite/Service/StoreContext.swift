import Dispatch
import Foundation
import Tracing

/// What every service of one hierarchy shares: the backend, the model, the initialization state and the change
/// sets of all levels, under one lock so that moving changes between levels is atomic.
final class StoreContext: Sendable {
    enum Initialization: Sendable {
        /// Not done yet: what wakes each waiter.
        case pending([@Sendable () -> Void])
        case ready
        case failed(StoreError)
    }

    struct Tree: Sendable {
        var levels: [Int: ChangeSet] = [:]
        /// Changes being committed, by commit ticket, as they will be once committed
        /// (``ChangeSet/committedView()``); reads still see them until the commit ends.
        var inFlight: [Int: ChangeSet] = [:]
        var nextID = 1
        /// Commits of the hierarchy that have ended, successfully or not (see ``PersistenceService/storeVersion()``).
        var endedCommits = 0
    }

    let backend: any StoreBackend
    /// The same backend when it also answers on the calling thread (``SynchronousStoreBackend``): short reads and
    /// the `…AndWait` forms then run there.
    let synchronous: (any SynchronousStoreBackend)?
    let model: StoreModel
    let mergePolicy: MergePolicy
    /// The tracer every service of the hierarchy starts spans with; `nil` when they trace nothing.
    let tracer: (any Tracer)?
    /// What spans name the backend (read once: a backend's description does not change).
    let backendDescription: BackendDescription
    let initialization = Locked<Initialization>(.pending([]))
    let tree = Locked(Tree())
    /// Orders the hierarchy's commits.
    let commits = CommitSequencer()

    init(backend: any StoreBackend, model: StoreModel, mergePolicy: MergePolicy, tracer: (any Tracer)?) {
        self.backend = backend
        self.synchronous = backend as? any SynchronousStoreBackend
        self.model = model
        self.mergePolicy = mergePolicy
        self.tracer = tracer
        self.backendDescription = backend.backendDescription
    }

    /// Validates the model and migrates the store, then wakes every waiter.
    ///
    /// Traced as one `MIGRATE` span, parented to the context the root service was made in, with a child span per
    /// migration the backend applies.
    func initialize() async {
        let outcome: Initialization
        var span: StoreSpan?
        do throws(StoreError) {
            try model.validate()
            var recorder = MigrationRecorder.off
            if let tracer {
                let started = StoreSpan(
                    tracer: tracer,
                    name: StoreSpan.Operation.migrate,
                    context: ServiceContext.current ?? .topLevel,
                    kind: .client,
                    backend: backendDescription,
                    operation: StoreSpan.Operation.migrate
                )
                started.span.attributes[StoreSpan.Key.schemaVersion] = model.migrations.count
                recorder = MigrationRecorder(tracer: tracer, parent: started.span.context, backend: backendDescription)
                span = started
            }
            try await backend.migrate(to: model, recording: recorder)
            span?.end()
            outcome = .ready
        } catch {
            span?.fail(error)
            // A failure with a kind of its own (a corrupt file, a newer schema, an invalid model, …) keeps it;
            // only a generic backend failure becomes `initializationFailed`.
            outcome = .failed(
                error.code != .backend
                    ? error
                    : StoreError(
                        .initializationFailed,
                        entity: error.entity,
                        detail: error.code.phrase + (error.detail.isEmpty ? "" : "; " + error.detail),
                        reason: error.reason,
                        underlying: error.underlying ?? error
                    )
            )
        }
        let waiters = initialization.withLock { state -> [@Sendable () -> Void] in
            defer { state = outcome }
            if case .pending(let waiters) = state { return waiters }
            return []
        }
        for wake in waiters {
            wake()
        }
    }

    var isInitialized: Bool {
        initialization.withLock { state in
            if case .ready = state { return true }
            return false
        }
    }

    /// Throws unless initialization has finished successfully.
    func checkReady() throws(StoreError) {
        let state = initialization.withLock { $0 }
        switch state {
        case .ready: return
        case .pending: throw StoreError(.notInitialized)
        case .failed(let error): throw error
        }
    }

    /// Waits for initialization to finish; throws its error if it failed.
    func waitUntilInitialized() async throws(StoreError) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = initialization.withLock { state -> Bool in
                if case .pending(var waiters) = state {
                    waiters.append { continuation.resume() }
                    state = .pending(waiters)
                    return false
                }
                return true
            }
            if resumeNow { continuation.resume() }
        }
        try checkReady()
    }

    /// Blocks the calling thread until initialization finishes; throws its error if it failed.
    func waitUntilInitializedBlocking() throws(StoreError) {
        let semaphore = DispatchSemaphore(value: 0)
        let done = initialization.withLock { state -> Bool in
            guard case .pending(var waiters) = state else { return true }
            waiters.append { semaphore.signal() }
            state = .pending(waiters)
            return false
        }
        if !done { semaphore.wait() }
        try checkReady()
    }

    func makeLevel() -> Int {
        tree.withLock { tree in
            defer { tree.nextID += 1 }
            tree.levels[tree.nextID] = ChangeSet()
            return tree.nextID
        }
    }

    func removeLevel(_ id: Int) {
        tree.withLock { _ = $0.levels.removeValue(forKey: id) }
    }
}
