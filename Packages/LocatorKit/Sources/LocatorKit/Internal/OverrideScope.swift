import Synchronization

/// The task-local layer of overrides that `LocatorKitTesting` installs.
enum OverrideScope {
    /// How many override scopes are active anywhere in the process; while zero, resolves skip the task-local read.
    static let activeCount = Atomic<Int>(0)

    @TaskLocal static var layer: Locator?

    static func lookup(_ key: RegistrationKey) -> (entry: Entry, owner: Locator)? {
        layer?.lookupInHierarchy(key)
    }
}
