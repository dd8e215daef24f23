import Synchronization

/// The keys a shared instance's construction resolves, directly or through the factories it runs, so that an
/// override scope can tell which singletons were built on a service it replaces.
///
/// One recorder per construction of a shared instance; factories that run inside it (transient, graph,
/// parameterised ones) record into the same recorder, and a shared dependency adds its own recorded keys, so the
/// set is transitive. Only construction pays for it: resolving an existing instance records nothing.
final class DependencyRecorder: @unchecked Sendable {
    // @unchecked Sendable: `keys` is only read and written while holding `Coordinator.lock` (a factory may resolve
    // from several tasks at once); `open` is atomic; `next` is immutable.
    private var keys: Set<RegistrationKey> = []
    private let open = Atomic<Bool>(true)
    /// The construction that also gets everything recorded here (a graph instance made inside it).
    private let next: DependencyRecorder?

    init(passingTo next: DependencyRecorder? = nil) {
        self.next = next
    }

    /// Whether the construction is still running; a resolver kept past it stops recording (and takes the plain
    /// resolve path again).
    var isOpen: Bool { open.load(ordering: .relaxed) }

    /// Records that `key` was resolved, and what the entry that answered was built on.
    func record(_ key: RegistrationKey, dependencies: Set<RegistrationKey> = []) {
        guard isOpen else { return }
        Coordinator.lock.withLock {
            keys.insert(key)
            if !dependencies.isEmpty { keys.formUnion(dependencies) }
        }
        next?.record(key, dependencies: dependencies)
    }

    /// Everything recorded, once the construction is over: later resolves are not recorded.
    func close() -> Set<RegistrationKey> {
        open.store(false, ordering: .relaxed)
        return Coordinator.lock.withLock { keys }
    }
}
