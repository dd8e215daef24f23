extension Locator {
    /// Registers an existing instance, held strongly.
    ///
    /// A later registration of the same key replaces this one.
    ///
    /// - Returns: The registration, to forward more types to it with ``RegisteredService/implements(_:)``.
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    @discardableResult
    public func register<Service: Sendable>(
        _ instance: Service,
        as type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        let key = RegistrationKey(type, name: name)
        _ = try insert(key) { Registration<Service>(key: key, sequence: $0, instance: instance) }
        return RegisteredService(locator: self, key: key)
    }

    /// Registers a factory with a lifetime (``Lifetime/lazy`` unless told).
    ///
    /// The factory receives a ``Resolver`` for its own dependencies. With ``Lifetime/eager`` it runs now; an error
    /// it throws is kept and rethrown by every resolve (``tryRegister(_:name:factory:initCompleted:)`` throws it
    /// at once instead).
    ///
    /// `initCompleted` runs once for every instance the factory makes, after the outermost resolve that made it
    /// has finished: it can set a back-reference to a service that depends on this one, closing a cycle that a
    /// factory could not. See <doc:Cycles>.
    ///
    /// - Returns: The registration, to forward more types to it with ``RegisteredService/implements(_:)``.
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    @discardableResult
    public func register<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service,
        initCompleted: (@Sendable (Resolver, Service) throws -> Void)? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        try add(RegistrationKey(type, name: name), lifetime: lifetime, factory: .sync(factory), hook: initCompleted)
    }

    /// Registers an `async` factory with a lifetime (``Lifetime/lazy`` unless told).
    ///
    /// Resolve it with `await`; concurrent resolves share one creation. A factory isolated to a global actor
    /// (`{ @MainActor resolver in … }`) runs on that actor. With ``Lifetime/eager`` creation starts now.
    /// `initCompleted` runs as soon as each instance is made.
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when the locator is frozen.
    @discardableResult
    public func register<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) async throws -> Service,
        initCompleted: (@Sendable (Resolver, Service) throws -> Void)? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        try add(RegistrationKey(type, name: name), lifetime: lifetime, factory: .async(factory), hook: initCompleted)
    }

    /// Registers a factory that takes a parameter; each resolve passes one and gets a new instance.
    ///
    /// Factories of one service that take different parameter types (or none) are separate registrations; a
    /// resolve picks the one whose parameter types match its arguments. When `Params` is optional, resolving
    /// without parameters passes `nil` (if no parameterless factory is registered).
    public func register<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, Params) throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey.parameterised(type, name: name, signature: Params.self)
        _ = try insert(key) { ParamsRegistration<Service, Params>(key: key, sequence: $0, factory: .sync(factory)) }
    }

    /// Registers an `async` factory that takes a parameter.
    public func register<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, Params) async throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey.parameterised(type, name: name, signature: Params.self)
        _ = try insert(key) { ParamsRegistration<Service, Params>(key: key, sequence: $0, factory: .async(factory)) }
    }

    /// Registers a factory that takes two parameters; resolve it with `resolve(_:name:params:_:)`.
    public func register<Service: Sendable, First: Sendable, Second: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, First, Second) throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey.parameterised(type, name: name, signature: ParamsPair<First, Second>.self)
        _ = try insert(key) {
            ParamsRegistration<Service, (First, Second)>(
                key: key,
                sequence: $0,
                factory: .sync { resolver, params in try factory(resolver, params.0, params.1) },
                parameterTypes: [First.self, Second.self]
            )
        }
    }

    /// Registers an `async` factory that takes two parameters.
    public func register<Service: Sendable, First: Sendable, Second: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver, First, Second) async throws -> Service
    ) throws(LocatorError) {
        let key = RegistrationKey.parameterised(type, name: name, signature: ParamsPair<First, Second>.self)
        _ = try insert(key) {
            ParamsRegistration<Service, (First, Second)>(
                key: key,
                sequence: $0,
                factory: .async { resolver, params in try await factory(resolver, params.0, params.1) },
                parameterTypes: [First.self, Second.self]
            )
        }
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

    /// Registers a ``WeakHandle`` to an existing class instance, which never keeps it alive.
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
    @discardableResult
    public func register<Service: Sendable>(
        _ instance: Service,
        for key: LocatorKey<Service>
    ) throws(LocatorError) -> RegisteredService<Service> {
        let registrationKey = key.registrationKey
        _ = try insert(registrationKey) {
            Registration<Service>(key: registrationKey, sequence: $0, instance: instance)
        }
        return RegisteredService(locator: self, key: registrationKey)
    }

    /// Registers a factory for a typed key, with a lifetime and an optional post-construction hook, as for a type.
    @discardableResult
    public func register<Service: Sendable>(
        _ key: LocatorKey<Service>,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) throws -> Service,
        initCompleted: (@Sendable (Resolver, Service) throws -> Void)? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        try add(key.registrationKey, lifetime: lifetime, factory: .sync(factory), hook: initCompleted)
    }

    /// Registers an `async` factory for a typed key.
    @discardableResult
    public func register<Service: Sendable>(
        _ key: LocatorKey<Service>,
        lifetime: Lifetime = .lazy,
        factory: @escaping @Sendable (Resolver) async throws -> Service
    ) throws(LocatorError) -> RegisteredService<Service> {
        try add(key.registrationKey, lifetime: lifetime, factory: .async(factory), hook: nil)
    }

    /// Registers a parameterised factory for a typed key.
    public func register<Service: Sendable, Params: Sendable>(
        _ key: LocatorParamsKey<Service, Params>,
        factory: @escaping @Sendable (Resolver, Params) throws -> Service
    ) throws(LocatorError) {
        let registrationKey = key.signature.key
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

    // MARK: - Eager registration that throws

    /// Runs `factory` now and registers the instance it makes as an ``Lifetime/eager`` singleton, or throws the
    /// factory's failure to the caller.
    ///
    /// Use it where a service that cannot be made should stop start-up (a configuration that does not parse, a
    /// store that does not open) instead of failing its first resolve. When the factory fails nothing is
    /// registered and an earlier registration of the key stays in place.
    ///
    /// - Throws: ``LocatorError/Code/factoryFailed`` with the factory's error as ``LocatorError/underlying`` (or the
    ///   cycle or failure of a dependency, with its path); ``LocatorError/Code/readOnly`` when frozen.
    @discardableResult
    public func tryRegister<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver) throws -> Service,
        initCompleted: (@Sendable (Resolver, Service) throws -> Void)? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        try createThenInsert(RegistrationKey(type, name: name), factory: .sync(factory), hook: initCompleted)
    }

    /// Runs `factory` now and registers the instance for a typed key as an ``Lifetime/eager`` singleton, or
    /// throws the factory's failure; see ``tryRegister(_:name:factory:initCompleted:)``.
    @discardableResult
    public func tryRegister<Service: Sendable>(
        _ key: LocatorKey<Service>,
        factory: @escaping @Sendable (Resolver) throws -> Service,
        initCompleted: (@Sendable (Resolver, Service) throws -> Void)? = nil
    ) throws(LocatorError) -> RegisteredService<Service> {
        try createThenInsert(key.registrationKey, factory: .sync(factory), hook: initCompleted)
    }

    /// Awaits `factory` now and registers the instance it makes as an ``Lifetime/eager`` singleton, or throws the
    /// factory's failure to the caller; nothing is registered when it fails.
    @discardableResult
    public func tryRegister<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        factory: @escaping @Sendable (Resolver) async throws -> Service
    ) async throws(LocatorError) -> RegisteredService<Service> {
        let key = RegistrationKey(type, name: name)
        try refuseIfFrozen()
        let registration = Registration<Service>(key: key, lifetime: .eager, sequence: 0, factory: .async(factory))
        // Scope-aware: inside an override scope, an instance built on a replacement stays in the scope.
        _ = try await registration.resolveAnyAsync(requester: self, owner: self, node: nil)
        return try insertCreated(registration)
    }

    private func createThenInsert<Service: Sendable>(
        _ key: RegistrationKey,
        factory: Registration<Service>.Factory,
        hook: Registration<Service>.Hook?
    ) throws(LocatorError) -> RegisteredService<Service> {
        try refuseIfFrozen()
        let registration = Registration<Service>(
            key: key,
            lifetime: .eager,
            sequence: 0,
            factory: factory,
            initCompleted: hook
        )
        // Scope-aware: inside an override scope, an instance built on a replacement stays in the scope.
        _ = try registration.resolveAny(requester: self, owner: self, node: nil)
        return try insertCreated(registration)
    }

    /// Inserts a registration whose instance was made before it was inserted.
    private func insertCreated<Service: Sendable>(
        _ registration: Registration<Service>
    ) throws(LocatorError) -> RegisteredService<Service> {
        _ = try insert(registration.key) { sequence in
            registration.assignSequence(sequence)
            return registration
        }
        return RegisteredService(locator: self, key: registration.key)
    }

    private func refuseIfFrozen() throws(LocatorError) {
        guard !isFrozen else {
            throw .with(.readOnly, nil, note: "\(description) is frozen; registrations are refused")
        }
    }

    // MARK: - Removal and queries

    /// Removes the parameterless registration of `type` (and `name`) from this locator; a parent's registration
    /// shows through. Factories of the type that take parameters stay; see ``remove(_:name:parameters:)``.
    ///
    /// - Returns: Whether a registration was removed.
    /// - Throws: ``LocatorError/Code/readOnly`` when frozen.
    @discardableResult
    public func remove<Service>(_ type: Service.Type, name: String? = nil) throws(LocatorError) -> Bool {
        try removeEntry(RegistrationKey(type, name: name))
    }

    /// Removes the registration of a typed key from this locator, if it holds a `Service`.
    ///
    /// - Returns: Whether a registration was removed.
    @discardableResult
    public func remove<Service>(_ key: LocatorKey<Service>) throws(LocatorError) -> Bool {
        try removeEntry(key.registrationKey, serviceID: ObjectIdentifier(Service.self))
    }

    /// Removes the registration of a typed parameterised key from this locator, if it holds a `Service`.
    ///
    /// - Returns: Whether a registration was removed.
    @discardableResult
    public func remove<Service, Params>(_ key: LocatorParamsKey<Service, Params>) throws(LocatorError) -> Bool {
        try removeEntry(key.signature.key, serviceID: ObjectIdentifier(Service.self))
    }

    /// Removes the factory of `type` (and `name`) that takes a parameter of type `parameters`.
    ///
    /// - Returns: Whether a registration was removed.
    @discardableResult
    public func remove<Service, Params>(
        _ type: Service.Type,
        name: String? = nil,
        parameters: Params.Type
    ) throws(LocatorError) -> Bool {
        try removeEntry(.parameterised(type, name: name, signature: parameters))
    }

    /// Removes the factory of `type` (and `name`) that takes two parameters of these types.
    ///
    /// - Returns: Whether a registration was removed.
    @discardableResult
    public func remove<Service, First, Second>(
        _ type: Service.Type,
        name: String? = nil,
        parameters first: First.Type,
        _ second: Second.Type
    ) throws(LocatorError) -> Bool {
        try removeEntry(.parameterised(type, name: name, signature: ParamsPair<First, Second>.self))
    }

    /// Whether `type` (and `name`) is registered here or in an ancestor, with or without parameters.
    public func isRegistered<Service>(_ type: Service.Type, name: String? = nil) -> Bool {
        let key = RegistrationKey(type, name: name)
        if lookup(key) != nil { return true }
        var locator: Locator? = self
        while let current = locator {
            if !current.parameterisedSiblings(serviceID: ObjectIdentifier(type), of: key).isEmpty { return true }
            locator = current.parent
        }
        return false
    }

    private func add<Service: Sendable>(
        _ key: RegistrationKey,
        lifetime: Lifetime,
        factory: Registration<Service>.Factory,
        hook: Registration<Service>.Hook?
    ) throws(LocatorError) -> RegisteredService<Service> {
        let entry = try insert(key) {
            Registration<Service>(key: key, lifetime: lifetime, sequence: $0, factory: factory, initCompleted: hook)
        }
        if lifetime.kind == .eager, let registration = entry as? Registration<Service> {
            registration.createEagerly(owner: self)
        }
        return RegisteredService(locator: self, key: key)
    }
}
