/// A group of registrations that belong together, installed with `Locator.install(_:)`.
///
/// ```swift
/// struct StorageModule: LocatorModule {
///     func register(in locator: Locator) throws(LocatorError) {
///         try locator.register((any Store).self) { _ in SQLiteStore() }
///     }
/// }
/// try locator.install(StorageModule(), NetworkModule())
/// ```
public protocol LocatorModule: Sendable {
    /// Adds the module's registrations to `locator`.
    func register(in locator: Locator) throws(LocatorError)
}

extension Locator {
    /// Installs modules in order.
    public func install(_ modules: any LocatorModule...) throws(LocatorError) {
        for module in modules {
            try module.register(in: self)
        }
    }

    /// Installs modules in order.
    public func install(_ modules: [any LocatorModule]) throws(LocatorError) {
        for module in modules {
            try module.register(in: self)
        }
    }
}
