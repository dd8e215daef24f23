public import LocatorKit
import Synchronization

/// Implementations of one service registered under names, to pick by a name read from configuration.
///
/// A configuration file names the implementation to use (`"store": "sqlite"`); the catalogue registers each
/// implementation under its name in a `Locator` and resolves the one named:
///
/// ```swift
/// let stores = ServiceCatalog((any VehicleStore).self, locator: locator)
/// try stores.register("sqlite") { _ in try SQLiteVehicleStore(path: path) }
/// try stores.register("memory", lifetime: .transient) { _ in MemoryVehicleStore() }
/// let store = try stores.service(named: configuration.store)
/// ```
///
/// A name nobody registered throws ``ServiceLookupError/Code/unknownName`` with the nearest registered names
/// (by edit distance, at most three), so a typo in a configuration file is reported with its fix.
///
/// The implementations live in the locator, as named registrations of `Service` (`resolve(_:name:)` finds them
/// too), with the lifetime each was registered with; the catalogue keeps only the list of names it registered, for
/// the suggestions. Make one catalogue per service type at the composition root and keep it.
public final class ServiceCatalog<Service: Sendable>: Sendable {
    /// The locator that holds the implementations.
    public let locator: Locator
    private let names = Mutex<[String]>([])

    /// A catalogue of implementations of `type` (usually a protocol's existential, `(any VehicleStore).self`),
    /// registered in `locator`.
    public init(_ type: Service.Type = Service.self, locator: Locator) {
        self.locator = locator
    }

    /// The names registered through this catalogue, in the order they were first registered.
    public var registeredNames: [String] { names.withLock { $0 } }

    /// Registers an implementation under `name`, made by `factory` (on the first lookup unless `lifetime` says
    /// otherwise). A later registration under the same name replaces it.
    ///
    /// - Throws: LocatorKit's `LocatorError` with code `readOnly` when the locator is frozen.
    @discardableResult
    public func register(
        _ name: String,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) throws(LocatorError) -> RegisteredService<Service> {
        let registration = try locator.register(Service.self, name: name, lifetime: lifetime, factory: factory)
        remember(name)
        return registration
    }

    /// Registers an existing instance under `name`, held strongly.
    ///
    /// - Throws: LocatorKit's `LocatorError` with code `readOnly` when the locator is frozen.
    @discardableResult
    public func register(_ instance: Service, named name: String) throws(LocatorError) -> RegisteredService<Service> {
        let registration = try locator.register(instance, as: Service.self, name: name)
        remember(name)
        return registration
    }

    /// The implementation registered under `name`.
    ///
    /// - Throws: ``ServiceLookupError`` with ``ServiceLookupError/Code/unknownName`` and the nearest registered
    ///   names as ``ServiceLookupError/suggestions``, or ``ServiceLookupError/Code/resolutionFailed`` when the
    ///   implementation could not be made.
    public func service(named name: String) throws(ServiceLookupError) -> Service {
        do {
            return try locator.resolve(Service.self, name: name)
        } catch {
            throw lookupError(error, name: name)
        }
    }

    /// The implementation registered under `name`, awaiting an `async` factory.
    public func service(named name: String) async throws(ServiceLookupError) -> Service {
        do {
            return try await locator.resolve(Service.self, name: name)
        } catch {
            throw lookupError(error, name: name)
        }
    }

    /// The registered names nearest to `name` by edit distance (case is ignored), nearest first.
    public func nearestNames(to name: String, limit: Int = 3) -> [String] {
        NearestNames.ordered(by: name, among: registeredNames, limit: limit)
    }

    private func remember(_ name: String) {
        names.withLock { names in
            if !names.contains(name) { names.append(name) }
        }
    }

    private func lookupError(_ error: LocatorError, name: String) -> ServiceLookupError {
        if error.code == .notRegistered, !locator.isRegistered(Service.self, name: name) {
            return ServiceLookupError(
                .unknownName,
                serviceType: Service.self,
                name: name,
                suggestions: nearestNames(to: name),
                underlying: error
            )
        }
        return ServiceLookupError(.resolutionFailed, serviceType: Service.self, name: name, underlying: error)
    }
}
