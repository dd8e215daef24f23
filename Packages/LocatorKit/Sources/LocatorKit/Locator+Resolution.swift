import Synchronization

extension Locator {
    // MARK: - Public API

    /// Resolves the service registered for `type` (and `name`) here or in an ancestor.
    ///
    /// - Throws: ``LocatorError`` with code ``LocatorError/Code/notRegistered``, ``LocatorError/Code/cycle``,
    ///   ``LocatorError/Code/factoryFailed``, ``LocatorError/Code/released``, …
    public func resolve<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) throws(LocatorError) -> Service {
        try resolve(RegistrationKey(type, name: name), as: type, node: nil)
    }

    /// Resolves the service registered for a typed key.
    public func resolve<Service: Sendable>(_ key: LocatorKey<Service>) throws(LocatorError) -> Service {
        try resolve(key.registrationKey, as: Service.self, node: nil)
    }

    /// Resolves a parameterised service, passing `params` to the factory registered for parameters of that type.
    ///
    /// A factory taking `Params?` answers too when none takes `Params` itself.
    ///
    /// - Throws: ``LocatorError/Code/wrongParams`` when the service is registered, but not for this parameter type.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params: Params
    ) throws(LocatorError) -> Service {
        try resolveParams(.one(type, name: name, Params.self), as: type, params: params, node: nil, recorder: nil)
    }

    /// Resolves a service whose factory takes two parameters, passing `first` and `second`.
    ///
    /// - Throws: ``LocatorError/Code/wrongParams`` when the service is registered, but not for these parameter types.
    public func resolve<Service: Sendable, First: Sendable, Second: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params first: First,
        _ second: Second
    ) throws(LocatorError) -> Service {
        try resolveParams(
            .two(type, name: name, First.self, Second.self),
            as: type,
            params: (first, second),
            node: nil,
            recorder: nil
        )
    }

    /// Resolves a parameterised service by typed key.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ key: LocatorParamsKey<Service, Params>,
        params: Params
    ) throws(LocatorError) -> Service {
        try resolveParams(key.signature, as: Service.self, params: params, node: nil, recorder: nil)
    }

    /// Resolves the service, or gives `nil` on any failure (ServiceContainerKit's `getService()`).
    public func resolveOptional<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) -> Service? {
        try? resolve(type, name: name)
    }

    /// Resolves the service for a typed key, or gives `nil` on any failure.
    public func resolveOptional<Service: Sendable>(_ key: LocatorKey<Service>) -> Service? {
        try? resolve(key)
    }

    /// Resolves the service, awaiting an `async` factory; concurrent callers share one creation.
    ///
    /// A caller's cancellation does not cancel the shared creation, so other waiters still get the instance.
    public func resolve<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) async throws(LocatorError) -> Service {
        try await resolveAsync(RegistrationKey(type, name: name), as: type, node: nil)
    }

    /// Resolves the service for a typed key, awaiting an `async` factory.
    public func resolve<Service: Sendable>(_ key: LocatorKey<Service>) async throws(LocatorError) -> Service {
        try await resolveAsync(key.registrationKey, as: Service.self, node: nil)
    }

    /// Resolves a parameterised service, awaiting an `async` factory.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params: Params
    ) async throws(LocatorError) -> Service {
        try await resolveParamsAsync(.one(type, name: name, Params.self), as: type, params: params, node: nil)
    }

    /// Resolves a service whose factory takes two parameters, awaiting an `async` factory.
    public func resolve<Service: Sendable, First: Sendable, Second: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params first: First,
        _ second: Second
    ) async throws(LocatorError) -> Service {
        try await resolveParamsAsync(
            .two(type, name: name, First.self, Second.self),
            as: type,
            params: (first, second),
            node: nil
        )
    }

    /// Every service registered for `type`, under any name, here and in the ancestors (a multi-binding).
    ///
    /// A registration in a child hides the parent's one with the same name. Nearest locator first, then
    /// registration order; parameterised registrations are skipped.
    public func resolveAll<Service: Sendable>(_ type: Service.Type = Service.self) throws(LocatorError) -> [Service] {
        try resolveAll(type, node: nil)
    }

    /// A handle that resolves `type` (and `name`) each time it is asked, holding this locator weakly.
    ///
    /// Keep a provider in a service to reach a dependency later, for example to break a cycle.
    public func provider<Service: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil
    ) -> Provider<Service> {
        let reference = WeakLocator(self)
        let key = KeyDescription(serviceType: type, name: name, isTypedKey: false)
        return Provider { () throws(LocatorError) -> Service in
            guard let locator = reference.locator else {
                throw .with(.released, key, note: "the locator behind this provider was released")
            }
            return try locator.resolve(type, name: name)
        }
    }

    /// A handle that resolves `type` (and `name`) the first time it is read, then keeps that instance; it holds
    /// this locator weakly. See ``Lazy``.
    public func lazy<Service: Sendable>(_ type: Service.Type = Service.self, name: String? = nil) -> Lazy<Service> {
        Lazy(locator: self, name: name)
    }

    // MARK: - Implementation

    @inline(__always)
    func resolve<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        try resolve(key, as: type, anchor: node.map(ResolutionAnchor.node))
    }

    /// The resolve every synchronous path goes through; the anchor's node is only looked at on slow paths.
    @inline(__always)
    func resolve<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        anchor: ResolutionAnchor?
    ) throws(LocatorError) -> Service {
        if let scope = OverrideScope.active {
            return try resolveTracked(key, as: type, node: anchor?.node, scope: scope, recorder: nil)
        }
        return try resolve(key, as: type, in: self, anchor: anchor)
    }

    /// Resolves `key` from `locator` (this locator or an ancestor), then its ancestors.
    ///
    /// Hot path: an already created shared instance, copied out while the table is held for reading, so neither
    /// the locator nor the entry is retained and concurrent readers of one singleton share no reference count but
    /// the instance's own; no metadata lookup either (the slot is read with the caller's `Service` type).
    @inline(__always)
    func resolve<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        in locator: Locator,
        anchor: ResolutionAnchor?
    ) throws(LocatorError) -> Service {
        let wasFrozen = locator.beginUnretainedRead()
        guard let found = locator.unretainedEntry(for: key) else {
            locator.endUnretainedRead(wasFrozen)
            return try resolveInAncestors(key, as: type, from: locator, anchor: anchor)
        }
        if let slot = found._withUnsafeGuaranteedRef({ $0.publishedSlot(for: ObjectIdentifier(type)) }) {
            // Safe: the entry's service type is `Service` and the slot was initialised before `isPublished` was set.
            let instance = slot.assumingMemoryBound(to: Service.self).pointee
            locator.endUnretainedRead(wasFrozen)
            return instance
        }
        let entry = found.takeUnretainedValue()
        locator.endUnretainedRead(wasFrozen)
        return try resolve(entry, as: type, owner: locator, node: anchor?.node)
    }

    private func resolveInAncestors<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        from locator: Locator,
        anchor: ResolutionAnchor?
    ) throws(LocatorError) -> Service {
        guard let parent = locator.parent else {
            return try resolveWithoutExactMatch(key, as: type, anchor: anchor)
        }
        return try resolve(key, as: type, in: parent, anchor: anchor)
    }

    /// Nothing is registered for `key` itself: a factory with an optional parameter may answer, or the miss is
    /// explained.
    @inline(never)
    private func resolveWithoutExactMatch<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        anchor: ResolutionAnchor?
    ) throws(LocatorError) -> Service {
        let (entry, owner) = try parameterlessFallback(for: key, serviceType: type, scope: nil)
        return try resolveFound(entry, owner: owner, as: type, node: anchor?.node, scope: nil, recorder: nil).0
    }

    private func resolve<Service: Sendable>(
        _ entry: Entry,
        as type: Service.Type,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        guard entry.serviceID == ObjectIdentifier(type), entry.isPlain else {
            return try resolveFound(entry, owner: owner, as: type, node: node, scope: nil, recorder: nil).0
        }
        // Safe: the only plain `Entry` subclass is `Registration`, and its service type identifier matches
        // `Service`, so this entry is a `Registration<Service>`.
        let registration = unsafeDowncast(entry, to: Registration<Service>.self)
        return try registration.resolve(requester: self, owner: owner, node: node)
    }

    /// The general synchronous path: override scopes, dependency recording, forwarding, optional parameters.
    /// Records `key` and what answered it was built on into `recorder`.
    func resolveTracked<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        node: ResolutionNode?,
        scope: OverrideScopeState?,
        recorder: DependencyRecorder?
    ) throws(LocatorError) -> Service {
        let (entry, owner) = try find(key, serviceType: type, scope: scope)
        let (value, dependencies) = try resolveFound(
            entry,
            owner: owner,
            as: type,
            node: node,
            scope: scope,
            recorder: recorder
        )
        recorder?.record(key, dependencies: dependencies)
        return value
    }

    /// The registration that answers `key`: a replacement of the override scope, this locator's or an
    /// ancestor's, or a factory with an optional parameter.
    private func find<Service>(
        _ key: RegistrationKey,
        serviceType: Service.Type,
        scope: OverrideScopeState?
    ) throws(LocatorError) -> (entry: Entry, owner: Locator) {
        if let scope, let hit = scope.lookup(key) { return hit }
        if let hit = lookupInHierarchy(key) { return hit }
        return try parameterlessFallback(for: key, serviceType: serviceType, scope: scope)
    }

    /// For a resolve without parameters that found nothing: the nearest factory of the same service and name that
    /// takes an optional parameter (it gets `nil`). Otherwise explains the miss: registered only with parameters
    /// (``LocatorError/Code/wrongParams``), or not at all (``LocatorError/Code/notRegistered``).
    private func parameterlessFallback<Service>(
        for key: RegistrationKey,
        serviceType: Service.Type,
        scope: OverrideScopeState?
    ) throws(LocatorError) -> (entry: Entry, owner: Locator) {
        let id = ObjectIdentifier(serviceType)
        var layers: Locator? = scope?.layer
        var locator: Locator? = self
        while let current = layers ?? locator {
            if layers != nil { layers = current.parent } else { locator = current.parent }
            let siblings = current.parameterisedSiblings(serviceID: id, of: key)
            guard !siblings.isEmpty else { continue }
            let optional = siblings.filter(\.acceptsNoParams)
            if optional.count == 1 { return (optional[0], current) }
            let description = KeyDescription(serviceType: serviceType, name: key.name, isTypedKey: key.isTypedKey)
            let list = (optional.isEmpty ? siblings : optional).map(\.keyDescription.parametersText)
                .joined(separator: ", ")
            if optional.isEmpty {
                throw .with(.wrongParams, description, note: "registered only with parameters \(list); pass them")
            }
            throw .with(
                .wrongParams,
                description,
                note: "several factories take an optional parameter: \(list); pass one to choose"
            )
        }
        throw .notRegistered(
            KeyDescription(serviceType: serviceType, name: key.name, isTypedKey: key.isTypedKey),
            searched: self
        )
    }

    /// Resolves a registration found for a key; returns the instance and, when `recorder` or `scope` asks for it,
    /// what a shared instance was built on.
    func resolveFound<Service: Sendable>(
        _ entry: Entry,
        owner: Locator,
        as type: Service.Type,
        node: ResolutionNode?,
        scope: OverrideScopeState?,
        recorder: DependencyRecorder?
    ) throws(LocatorError) -> (Service, Set<RegistrationKey>) {
        guard entry.serviceID == ObjectIdentifier(type) else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        if entry.isForwarding {
            // Safe: a forwarding entry whose service type identifier matches `Service` is a `ForwardingBase<Service>`.
            let forwarding = unsafeDowncast(entry, to: ForwardingBase<Service>.self)
            return (try forwarding.forward(owner: owner, node: node, recorder: recorder), [])
        }
        if entry.isParameterised {
            // A parameterised registration resolved without parameters: its parameter is optional.
            let value = try entry.resolveAny(requester: self, owner: owner, node: node)
            guard let typed = value as? Service else {
                throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
            }
            return (typed, [])
        }
        // Safe: see `resolve(_:as:owner:node:)`.
        let registration = unsafeDowncast(entry, to: Registration<Service>.self)
        if let scope, registration.hasSharedFactory {
            return try registration.resolveInScope(scope, owner: owner, node: node)
        }
        let value = try registration.resolve(requester: self, owner: owner, node: node)
        guard recorder != nil, registration.recordsDependencies else { return (value, []) }
        return (value, Coordinator.lock.withLock { registration.dependencies })
    }

    /// ``resolveFound(_:owner:as:node:scope:recorder:)`` for `async` resolves.
    func resolveFoundAsync<Service: Sendable>(
        _ entry: Entry,
        owner: Locator,
        as type: Service.Type,
        node: ResolutionNode?,
        scope: OverrideScopeState?,
        recorder: DependencyRecorder?
    ) async throws(LocatorError) -> (Service, Set<RegistrationKey>) {
        guard entry.serviceID == ObjectIdentifier(type) else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        if entry.isForwarding {
            // Safe: see `resolveFound`.
            let forwarding = unsafeDowncast(entry, to: ForwardingBase<Service>.self)
            return (try await forwarding.forwardAsync(owner: owner, node: node, recorder: recorder), [])
        }
        if entry.isParameterised {
            let value = try await entry.resolveAnyAsync(requester: self, owner: owner, node: node)
            guard let typed = value as? Service else {
                throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
            }
            return (typed, [])
        }
        // Safe: see `resolve(_:as:owner:node:)`.
        let registration = unsafeDowncast(entry, to: Registration<Service>.self)
        if let scope, registration.hasSharedFactory {
            return try await registration.resolveInScopeAsync(scope, owner: owner, node: node)
        }
        let value = try await registration.resolveAsync(requester: self, owner: owner, node: node)
        guard recorder != nil, registration.recordsDependencies else { return (value, []) }
        return (value, Coordinator.lock.withLock { registration.dependencies })
    }

    func resolveAsync<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        node: ResolutionNode?,
        recorder: DependencyRecorder? = nil
    ) async throws(LocatorError) -> Service {
        let scope = OverrideScope.active
        let (entry, owner) = try find(key, serviceType: type, scope: scope)
        let (value, dependencies) = try await resolveFoundAsync(
            entry,
            owner: owner,
            as: type,
            node: node,
            scope: scope,
            recorder: recorder
        )
        recorder?.record(key, dependencies: dependencies)
        return value
    }

    // MARK: Parameters

    func resolveParams<Service: Sendable>(
        _ signature: ParamsSignatureKey,
        as type: Service.Type,
        params: any Sendable,
        node: ResolutionNode?,
        recorder: DependencyRecorder?
    ) throws(LocatorError) -> Service {
        guard let registration = try paramsRegistration(signature, as: type) else {
            let converted = try convertingParamsRegistration(signature, as: type, params: params)
            let value = try converted.resolve(anyParams: params, requester: self, node: node)
            recorder?.record(signature.key)
            recorder?.record(converted.key)
            return value
        }
        let value = try registration.resolve(anyParams: params, requester: self, node: node)
        recorder?.record(signature.key)
        return value
    }

    func resolveParamsAsync<Service: Sendable>(
        _ signature: ParamsSignatureKey,
        as type: Service.Type,
        params: any Sendable,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        guard let registration = try paramsRegistration(signature, as: type) else {
            let converted = try convertingParamsRegistration(signature, as: type, params: params)
            return try await converted.resolveAsync(anyParams: params, requester: self, node: node)
        }
        return try await registration.resolveAsync(anyParams: params, requester: self, node: node)
    }

    /// The factory registered for exactly these parameter types, else for their optional version; `nil` when
    /// neither is registered.
    private func paramsRegistration<Service: Sendable>(
        _ signature: ParamsSignatureKey,
        as type: Service.Type
    ) throws(LocatorError) -> ParamsProvidingEntry<Service>? {
        guard let (entry, _) = lookup(signature.key) ?? signature.optionalKey.flatMap({ lookup($0) }) else {
            return nil
        }
        guard entry.serviceID == ObjectIdentifier(type) else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        guard let registration = entry as? ParamsProvidingEntry<Service> else {
            throw .with(.wrongParams, entry.keyDescription, note: "unsupported registration")
        }
        return registration
    }

    /// No factory takes exactly the argument types (nor their optional version): the one factory of the service
    /// and name whose parameter types the arguments convert to (a dynamic cast succeeds, as for a protocol they
    /// conform to), searched in the override layers, this locator and its ancestors, a nearer registration of a
    /// signature hiding a farther one. Typed keys name their parameter type and are never converted.
    ///
    /// Runs only after the exact lookup missed, so a resolve that matches exactly never pays for it.
    @inline(never)
    private func convertingParamsRegistration<Service: Sendable>(
        _ signature: ParamsSignatureKey,
        as type: Service.Type,
        params: any Sendable
    ) throws(LocatorError) -> ParamsProvidingEntry<Service> {
        guard !signature.base.isTypedKey else { throw missingParams(signature, serviceType: type) }
        let id = ObjectIdentifier(type)
        let arity = signature.parameterTypes.count
        var seen: [RegistrationKey] = []
        var matches: [ParamsProvidingEntry<Service>] = []
        var layers: Locator? = OverrideScope.active?.layer
        var locator: Locator? = self
        while let current = layers ?? locator {
            if layers != nil { layers = current.parent } else { locator = current.parent }
            for entry in current.parameterisedSiblings(serviceID: id, of: signature.base)
            where !seen.contains(entry.key) {
                seen.append(entry.key)
                guard let candidate = entry as? ParamsProvidingEntry<Service>, candidate.arity == arity,
                    candidate.accepts(params)
                else { continue }
                matches.append(candidate)
            }
        }
        guard matches.count < 2 else {
            let description = KeyDescription(
                serviceType: type,
                name: signature.base.name,
                isTypedKey: false,
                parameterTypes: signature.parameterTypes
            )
            let list = matches.map(\.keyDescription.parametersText).joined(separator: ", ")
            throw .with(
                .ambiguousParams,
                description,
                note: "no factory takes these parameter types and the arguments convert to several: \(list); "
                    + "register one for these types, or pass the arguments as the parameter types of one"
            )
        }
        guard let match = matches.first else { throw missingParams(signature, serviceType: type) }
        return match
    }

    /// Explains why no factory takes these parameters.
    private func missingParams<Service>(_ signature: ParamsSignatureKey, serviceType: Service.Type) -> LocatorError {
        let description = KeyDescription(
            serviceType: serviceType,
            name: signature.base.name,
            isTypedKey: signature.base.isTypedKey,
            parameterTypes: signature.parameterTypes
        )
        let id = ObjectIdentifier(serviceType)
        var layers: Locator? = OverrideScope.active?.layer
        var locator: Locator? = self
        while let current = layers ?? locator {
            if layers != nil { layers = current.parent } else { locator = current.parent }
            let siblings = current.parameterisedSiblings(serviceID: id, of: signature.base)
            if !siblings.isEmpty {
                let list = siblings.map(\.keyDescription.parametersText).joined(separator: ", ")
                return .with(.wrongParams, description, note: "its factories take parameters \(list)")
            }
            if let plain = current.entry(for: signature.base), plain.serviceID == id {
                return .with(.wrongParams, description, note: "its factory takes no parameters")
            }
        }
        return .notRegistered(description, searched: self)
    }

    // MARK: Multi-bindings

    func resolveAll<Service: Sendable>(
        _ type: Service.Type,
        node: ResolutionNode?,
        recorder: DependencyRecorder? = nil
    ) throws(LocatorError) -> [Service] {
        let scope = OverrideScope.active
        var seen = Set<RegistrationKey>()
        var services: [Service] = []
        var locator: Locator? = self
        let id = ObjectIdentifier(type)
        while let current = locator {
            for entry in current.snapshot() where entry.serviceID == id && !entry.isParameterised {
                guard seen.insert(entry.key).inserted else { continue }
                let (found, owner) = scope?.lookup(entry.key) ?? (entry, current)
                let (value, dependencies) = try resolveFound(
                    found,
                    owner: owner,
                    as: type,
                    node: node,
                    scope: scope,
                    recorder: recorder
                )
                recorder?.record(entry.key, dependencies: dependencies)
                services.append(value)
            }
            locator = current.parent
        }
        return services
    }
}

/// The key of a parameterised resolve: the exact signature, the optional fallback, and what errors name.
struct ParamsSignatureKey {
    let key: RegistrationKey
    let optionalKey: RegistrationKey?
    /// The key of the same service and name without parameters.
    let base: RegistrationKey
    let parameterTypes: [any Any.Type]

    static func one<Service, Params>(_ service: Service.Type, name: String?, _ params: Params.Type) -> Self {
        ParamsSignatureKey(
            key: .parameterised(service, name: name, signature: params),
            optionalKey: .parameterised(service, name: name, signature: Params?.self),
            base: RegistrationKey(service, name: name),
            parameterTypes: [params]
        )
    }

    static func two<Service, First, Second>(
        _ service: Service.Type,
        name: String?,
        _ first: First.Type,
        _ second: Second.Type
    ) -> Self {
        ParamsSignatureKey(
            key: .parameterised(service, name: name, signature: ParamsPair<First, Second>.self),
            optionalKey: nil,
            base: RegistrationKey(service, name: name),
            parameterTypes: [first, second]
        )
    }

    static func typed<Params>(_ id: String, _ params: Params.Type) -> Self {
        ParamsSignatureKey(
            key: .typed(id, signature: params),
            optionalKey: .typed(id, signature: Params?.self),
            base: .typed(id),
            parameterTypes: [params]
        )
    }
}

/// A weak reference to a locator, for providers.
final class WeakLocator: Sendable {
    weak let locator: Locator?

    init(_ locator: Locator) {
        self.locator = locator
    }
}
