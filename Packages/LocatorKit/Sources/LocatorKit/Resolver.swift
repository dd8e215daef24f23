/// What a factory receives to resolve its own dependencies.
///
/// A resolver carries the resolution path, so cycles are reported with their whole path and `graph` instances
/// are shared within one root resolve. Factories of shared lifetimes (`eager`, `lazy`, `weak`, `scoped`) get a
/// resolver over the locator that owns the registration, so a singleton never captures a child's services;
/// `transient` and `graph` factories get one over the locator the resolve started from.
///
/// Use the resolver while the factory runs. A resolver kept longer, or handed to another thread, still resolves
/// safely but starts a new resolution path, so it no longer takes part in cycle reports; to reach a service later
/// (for example to break a legitimate cycle), keep a ``Provider`` from ``provider(_:name:)`` instead.
public struct Resolver: Sendable {
    let locator: Locator
    let anchor: ResolutionAnchor
    /// Where the keys this resolver resolves are recorded, while it serves a shared instance's construction.
    let recorder: DependencyRecorder?

    init(locator: Locator, node: ResolutionNode) {
        self.locator = locator
        self.anchor = .node(node)
        self.recorder = node.recorder
    }

    init(locator: Locator, frame: UInt64, recorder: DependencyRecorder? = nil) {
        self.locator = locator
        self.anchor = .frame(frame)
        self.recorder = recorder
    }

    /// A resolver on no resolution path (serial 0 never names a frame), for post-construction hooks.
    init(detachedFrom locator: Locator) {
        self.init(locator: locator, frame: 0)
    }

    @inline(__always)
    private func resolve<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type
    ) throws(LocatorError)
        -> Service
    {
        if let recorder, recorder.isOpen {
            return try locator.resolveTracked(
                key,
                as: type,
                node: anchor.node,
                scope: OverrideScope.active,
                recorder: recorder
            )
        }
        return try locator.resolve(key, as: type, anchor: anchor)
    }

    private var node: ResolutionNode? { anchor.node }

    /// Resolves the service registered for `type` (and `name`).
    public func resolve<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) -> Service {
        try resolve(RegistrationKey(type, name: name), as: type)
    }

    /// Resolves the service registered for a typed key.
    public func resolve<Service: Sendable>(_ key: LocatorKey<Service>) throws(LocatorError) -> Service {
        try resolve(key.registrationKey, as: Service.self)
    }

    /// Resolves a parameterised service, passing `params` to the factory registered for that parameter type.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params: Params
    ) throws(LocatorError) -> Service {
        try locator.resolveParams(
            .one(type, name: name, Params.self),
            as: type,
            params: params,
            node: node,
            recorder: recorder
        )
    }

    /// Resolves a service whose factory takes two parameters.
    public func resolve<Service: Sendable, First: Sendable, Second: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params first: First,
        _ second: Second
    ) throws(LocatorError) -> Service {
        try locator.resolveParams(
            .two(type, name: name, First.self, Second.self),
            as: type,
            params: (first, second),
            node: node,
            recorder: recorder
        )
    }

    /// Resolves a parameterised service by typed key.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ key: LocatorParamsKey<Service, Params>,
        params: Params
    ) throws(LocatorError) -> Service {
        try locator.resolveParams(key.signature, as: Service.self, params: params, node: node, recorder: recorder)
    }

    /// Resolves the service, or gives `nil` on any failure.
    public func resolveOptional<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) -> Service? {
        try? resolve(type, name: name)
    }

    /// Resolves the service, awaiting an `async` factory.
    public func resolve<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) async throws(LocatorError) -> Service {
        try await locator.resolveAsync(RegistrationKey(type, name: name), as: type, node: node, recorder: recorder)
    }

    /// Resolves the service for a typed key, awaiting an `async` factory.
    public func resolve<Service: Sendable>(_ key: LocatorKey<Service>) async throws(LocatorError) -> Service {
        try await locator.resolveAsync(key.registrationKey, as: Service.self, node: node, recorder: recorder)
    }

    /// Every service registered for `type` under any name, nearest locator first; see ``Locator/resolveAll(_:)``.
    public func resolveAll<Service: Sendable>(_ type: Service.Type = Service.self) throws(LocatorError) -> [Service] {
        try locator.resolveAll(type, node: node, recorder: recorder)
    }

    /// A handle that resolves the service when asked, not now: the way to break a legitimate cycle.
    public func provider<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) -> Provider<Service> {
        locator.provider(type, name: name)
    }

    /// A handle that resolves the service the first time it is read, then keeps it; see ``Lazy``.
    ///
    /// Like a ``Provider``, it resolves later, not now, so it can break a legitimate cycle.
    public func lazy<Service: Sendable>(_ type: Service.Type = Service.self, name: String? = nil) -> Lazy<Service> {
        locator.lazy(type, name: name)
    }
}
