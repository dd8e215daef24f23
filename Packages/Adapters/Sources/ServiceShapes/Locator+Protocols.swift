public import LocatorKit

// Registration and lookup keyed by a protocol: the service's contract is the key, and every lookup of it returns
// the one registered implementation. These forward to LocatorKit's own registrations (the key is the protocol's
// existential type, `(any VehicleStore).self`), so a service registered here resolves with `resolve(_:)` too.
extension Locator {
    /// Registers `service` as the implementation of a protocol, held strongly; every lookup returns it.
    ///
    /// Pass the protocol's existential type, `(any VehicleStore).self`; a later registration for the same protocol
    /// replaces this one.
    ///
    /// - Throws: LocatorKit's `LocatorError` with code `readOnly` when the locator is frozen.
    @discardableResult
    public func register<Service: Sendable>(
        _ service: Service,
        for protocolType: Service.Type
    ) throws(LocatorError) -> RegisteredService<Service> {
        try register(service, as: protocolType)
    }

    /// Registers the implementation of a protocol made by `factory`, on the first lookup unless `lifetime` says
    /// otherwise; the factory gets a `Resolver` for its own dependencies.
    ///
    /// - Throws: LocatorKit's `LocatorError` with code `readOnly` when the locator is frozen.
    @discardableResult
    public func register<Service: Sendable>(
        for protocolType: Service.Type,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) throws(LocatorError) -> RegisteredService<Service> {
        try register(protocolType, lifetime: lifetime, factory: factory)
    }

    /// Registers a class instance as the implementation of a protocol without keeping it alive; a lookup after it
    /// was released fails with ``ServiceLookupError/Code/resolutionFailed``.
    ///
    /// - Throws: LocatorKit's `LocatorError` with code `typeMismatch` when `service` is not a class instance,
    ///   `readOnly` when the locator is frozen.
    public func register<Service: Sendable>(weak service: Service, for protocolType: Service.Type) throws(LocatorError)
    {
        try register(weak: service, as: protocolType)
    }

    /// The implementation registered for a protocol, here or in an ancestor locator.
    ///
    /// - Throws: ``ServiceLookupError`` with ``ServiceLookupError/Code/notRegistered`` (and the nearest
    ///   registrations as ``ServiceLookupError/suggestions``) or ``ServiceLookupError/Code/resolutionFailed``.
    public func service<Service: Sendable>(for protocolType: Service.Type) throws(ServiceLookupError) -> Service {
        do {
            return try resolve(protocolType)
        } catch {
            throw lookupError(error, for: protocolType)
        }
    }

    /// The implementation registered for a protocol, awaiting an `async` factory.
    public func service<Service: Sendable>(
        for protocolType: Service.Type
    ) async throws(ServiceLookupError) -> Service {
        do {
            return try await resolve(protocolType)
        } catch {
            throw lookupError(error, for: protocolType)
        }
    }

    private func lookupError<Service>(_ error: LocatorError, for type: Service.Type) -> ServiceLookupError {
        if error.code == .notRegistered, !isRegistered(type) {
            return ServiceLookupError(
                .notRegistered,
                serviceType: type,
                suggestions: error.candidates,
                underlying: error
            )
        }
        return ServiceLookupError(.resolutionFailed, serviceType: type, underlying: error)
    }
}
