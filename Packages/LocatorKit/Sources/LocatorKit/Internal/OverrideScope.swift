import Synchronization

/// The task-local override scopes that `LocatorKitTesting` installs.
enum OverrideScope {
    /// How many override scopes are active anywhere in the process; while zero, resolves skip the task-local read.
    static let activeCount = Atomic<Int>(0)

    @TaskLocal static var current: OverrideScopeState?

    /// The current task's scope, reading the task-local only while some scope is active somewhere.
    @inline(__always)
    static var active: OverrideScopeState? {
        activeCount.load(ordering: .relaxed) == 0 ? nil : current
    }
}

/// One override scope: its layer of replacements, and the shared instances it had to build for itself.
///
/// Inside a scope, a shared instance (`eager`, `lazy`, `weak`, `scoped`) whose construction resolved a replaced
/// key, directly or through other services, is not used: the scope builds one with the replacements and keeps it
/// here, for every resolve in the scope, and it is dropped with the scope. Nothing built on a replacement is ever
/// stored in a locator.
final class OverrideScopeState: @unchecked Sendable {
    // @unchecked Sendable: `layer` is immutable (and a `Sendable` locator); `instances` is only read and written
    // while holding `lock`.
    let layer: Locator
    private let lock = PThreadLock()
    private var instances:
        [ObjectIdentifier: (entry: Entry, instance: any Sendable, dependencies: Set<RegistrationKey>)] =
            [:]

    init(layer: Locator) {
        self.layer = layer
    }

    /// The entry for `key` among the replacements (this scope's and its enclosing scopes').
    func lookup(_ key: RegistrationKey) -> (entry: Entry, owner: Locator)? {
        layer.lookupInHierarchy(key)
    }

    /// Whether any key in `dependencies` is replaced in this scope (or an enclosing one).
    func replacesAny(of dependencies: Set<RegistrationKey>) -> Bool {
        guard !dependencies.isEmpty else { return false }
        var locator: Locator? = layer
        while let current = locator {
            if current.snapshot().contains(where: { dependencies.contains($0.key) }) { return true }
            locator = current.parent
        }
        return false
    }

    /// The instance this scope built for `entry`, and what it was built on.
    func instance(for entry: Entry) -> (any Sendable, Set<RegistrationKey>)? {
        lock.withLock {
            instances[ObjectIdentifier(entry)].map { ($0.instance, $0.dependencies) }
        }
    }

    /// Keeps `instance` for `entry` unless another task of the scope kept one first; returns the one kept and
    /// whether it is `instance`.
    func store(
        _ instance: any Sendable,
        dependencies: Set<RegistrationKey>,
        for entry: Entry
    ) -> (any Sendable, inserted: Bool) {
        lock.withLock {
            if let existing = instances[ObjectIdentifier(entry)] {
                return (existing.instance, false)
            }
            instances[ObjectIdentifier(entry)] = (entry, instance, dependencies)
            return (instance, true)
        }
    }
}
