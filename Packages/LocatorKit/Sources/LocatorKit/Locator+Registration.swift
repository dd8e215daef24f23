extension Locator {
    /// Registers an existing instance, held strongly (the seed's standard registration).
    ///
    /// A later registration of the same key replaces this one.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    public func register<Service: Sendable>(
        _ instance: Service,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) {
        let key = RegistrationKey(type, name: name)
        _ = try insert(key) { Registration<Service>(key: key, sequence: $0, instance: instance) }
    }

    /// Registers a factory with a lifetime (``Lifetime/lazy`` unless told).
    ///
    /// The factory receives a ``Resolver`` for its own dependencies. With ``Lifetime/eager`` it runs now; an error
    /// it throws is kept and rethrown by every resolve.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    public func register<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) throws(LocatorError) {
        try add(RegistrationKey(type, name: name), lifetime: lifetime, factory: .sync(factory))
    }

    /// Registers an `async` factory with a lifetime (``Lifetime/lazy`` unless told).
    ///
    /// Resolve it with `await`; concurrent resolves share one creation. A factory isolated to a global actor
    /// (`{ @MainActor resolver in … }`) runs on that actor. With ``Lifetime/eager`` creation starts now.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    public func register<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) async throws -> Service
    ) throws(LocatorError) {
        try add(RegistrationKey(type, name: name), lifetime: lifetime, factory: .async(factory))
    }

    /// Registers a factory that takes a parameter; each resolve passes one and gets a new instance.
    ///
    /// When `Params` is optional, resolving without parameters passes `nil`.
    public func register<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, Params) throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey(type, name: name)
        _ = try insert(key) { ParamsRegistration<Service, Params>(key: key, sequence: $0, factory: .sync(factory)) }
    }

    /// Registers an `async` factory that takes a parameter.
    public func register<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, Params) async throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey(type, name: name)
        _ = try insert(key) { ParamsRegistration<Service, Params>(key: key, sequence: $0, factory: .async(factory)) }
    }

    /// Registers an existing class instance without keeping it alive.
    ///
    /// Resolving it after it was released throws ``LocatorError/Code/released``, never a dangling object.
    ///
    /// - Throws: ``LocatorError/Code/typeMismatch`` when `instance` is not a class instance,
    ///   ``LocatorError/Code/readOnly`` when frozen.
    public func register<Service: Sendable>(
        weak instance: Service,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) {
        let key = RegistrationKey(type, name: name)
        guard isClassInstance(instance) else {
            throw .with(
                .typeMismatch,
                KeyDescription(serviceType: type, name: name, isTypedKey: false),
                note: "a weak registration needs a class instance, got \(Swift.type(of: instance))"
            )
        }
        let object = instance as AnyObject
        _ = try insert(key) { Registration<Service>(key: key, sequence: $0, weakInstance: object) }
    }

    /// Registers a ``WeakHandle`` to an existing class instance: the seed's weak proxy.
    ///
    /// Resolve `WeakHandle<Service>.self` (with the same `name`); neither the locator nor the handle keeps the
    /// instance alive.
    public func register<Service: Sendable>(
        weakHandleTo instance: Service,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) {
        guard isClassInstance(instance) else {
            throw .with(
                .typeMismatch,
                KeyDescription(serviceType: type, name: name, isTypedKey: false),
                note: "a weak handle needs a class instance, got \(Swift.type(of: instance))"
            )
        }
        try register(WeakHandle<Service>(instance as AnyObject), as: WeakHandle<Service>.self, name: name)
    }

    /// Registers an existing instance for a typed key.
    public func register<Service: Sendable>(_ instance: Service, for key: LocatorKey<Service>) throws(LocatorError) {
        let registrationKey = key.registrationKey
        _ = try insert(registrationKey) {
            Registration<Service>(key: registrationKey, sequence: $0, instance: instance)
        }
    }

    /// Registers a factory for a typed key.
    public func register<Service: Sendable>(
        _ key: LocatorKey<Service>,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) throws(LocatorError) {
        try add(key.registrationKey, lifetime: lifetime, factory: .sync(factory))
    }

    /// Registers an `async` factory for a typed key.
    public func register<Service: Sendable>(
        _ key: LocatorKey<Service>,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) async throws -> Service
    ) throws(LocatorError) {
        try add(key.registrationKey, lifetime: lifetime, factory: .async(factory))
    }

    /// Registers a parameterised factory for a typed key.
    public func register<Service: Sendable, Params: Sendable>(
        _ key: LocatorParamsKey<Service, Params>,
        factory: @escaping @Sendable (Resolver, Params) throws -> Service
    ) throws(LocatorError) {
        let registrationKey = key.registrationKey
        _ = try insert(registrationKey) {
            ParamsRegistration<Service, Params>(key: registrationKey, sequence: $0, factory: .sync(factory))
        }
    }

    /// Registers a ``Provider``: each resolve asks the provider, which keeps its own lifetime.
    public func register<Service: Sendable>(
        provider: Provider<Service>,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) {
        try register(type, name: name, lifetime: .transient) { _ in try provider.get() }
    }

    /// Registers a ``ParamsProvider``: each resolve passes its parameter to the provider.
    public func register<Service: Sendable, Params: Sendable>(
        provider: ParamsProvider<Service, Params>,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) {
        try register(type, name: name) { (_, params: Params) in try provider.get(params) }
    }

    /// Removes the registration of `type` (and `name`) from this locator; a parent's registration shows through.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when frozen.
    public func remove<Service>(_ type: Service.Type, name: String? = nil) throws(LocatorError) {
        try removeEntry(RegistrationKey(type, name: name))
    }

    /// Removes the registration of a typed key from this locator.
    public func remove<Service>(_ key: LocatorKey<Service>) throws(LocatorError) {
        try removeEntry(key.registrationKey)
    }

    /// Whether `type` (and `name`) is registered here or in an ancestor.
    public func isRegistered<Service>(_ type: Service.Type, name: String? = nil) -> Bool {
        lookup(RegistrationKey(type, name: name)) != nil
    }

    private func add<Service: Sendable>(
        _ key: RegistrationKey,
        lifetime: Lifetime,
        factory: Registration<Service>.Factory
    ) throws(LocatorError) {
        let entry = try insert(key) {
            Registration<Service>(key: key, lifetime: lifetime, sequence: $0, factory: factory)
        }
        if lifetime.kind == .eager, let registration = entry as? Registration<Service> {
            registration.createEagerly(owner: self)
        }
    }
}
