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

    /// Resolves a parameterised service, passing `params` to its factory.
    ///
    /// - Throws: ``LocatorError/Code/wrongParams`` when the factory takes another parameter type.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ type: Service.Type = Service.self,
        name: String? = nil,
        params: Params
    ) throws(LocatorError) -> Service {
        try resolve(RegistrationKey(type, name: name), as: type, params: params, node: nil)
    }

    /// Resolves a parameterised service by typed key.
    public func resolve<Service: Sendable, Params: Sendable>(
        _ key: LocatorParamsKey<Service, Params>,
        params: Params
    ) throws(LocatorError) -> Service {
        try resolve(key.registrationKey, as: Service.self, params: params, node: nil)
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
        try await resolveAsync(RegistrationKey(type, name: name), as: type, params: params, node: nil)
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
        if OverrideScope.activeCount.load(ordering: .relaxed) != 0, let (entry, owner) = OverrideScope.lookup(key) {
            return try resolve(entry, as: type, owner: owner, node: anchor?.node)
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
            throw .notRegistered(
                KeyDescription(serviceType: type, name: key.name, isTypedKey: key.isTypedKey),
                searched: self
            )
        }
        return try resolve(key, as: type, in: parent, anchor: anchor)
    }

    private func resolve<Service: Sendable>(
        _ entry: Entry,
        as type: Service.Type,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        guard entry.serviceID == ObjectIdentifier(type), !entry.isParameterised else {
            return try resolveMismatched(entry, as: type, owner: owner, node: node)
        }
        // Safe: the only `Entry` subclass that is not parameterised is `Registration`, and its service type
        // identifier matches `Service`, so this entry is a `Registration<Service>`.
        let registration = unsafeDowncast(entry, to: Registration<Service>.self)
        return try registration.resolve(requester: self, owner: owner, node: node)
    }

    private func resolveMismatched<Service: Sendable>(
        _ entry: Entry,
        as type: Service.Type,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        guard entry.serviceID == ObjectIdentifier(type) else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        // A parameterised registration resolved without parameters: allowed when the parameter is optional.
        let value = try entry.resolveAny(requester: self, owner: owner, node: node)
        guard let typed = value as? Service else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        return typed
    }

    func resolve<Service: Sendable, Params: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        params: Params,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        let registration = try paramsRegistration(key, as: type, params: Params.self)
        return try registration.resolve(anyParams: params, requester: self, node: node)
    }

    func resolveAsync<Service: Sendable, Params: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        params: Params,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        let registration = try paramsRegistration(key, as: type, params: Params.self)
        return try await registration.resolveAsync(anyParams: params, requester: self, node: node)
    }

    private func paramsRegistration<Service: Sendable, Params: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        params: Params.Type
    ) throws(LocatorError) -> ParamsProvidingEntry<Service> {
        guard let (entry, _) = lookup(key) else {
            throw .notRegistered(
                KeyDescription(serviceType: type, name: key.name, isTypedKey: key.isTypedKey),
                searched: self
            )
        }
        guard entry.serviceID == ObjectIdentifier(type) else {
            throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
        }
        guard let registration = entry as? ParamsProvidingEntry<Service> else {
            throw .with(.wrongParams, entry.keyDescription, note: "its factory takes no parameters")
        }
        return registration
    }

    func resolveAsync<Service: Sendable>(
        _ key: RegistrationKey,
        as type: Service.Type,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        guard let (entry, owner) = lookup(key) else {
            throw .notRegistered(
                KeyDescription(serviceType: type, name: key.name, isTypedKey: key.isTypedKey),
                searched: self
            )
        }
        guard entry.serviceID == ObjectIdentifier(type), !entry.isParameterised else {
            let value = try await entry.resolveAnyAsync(requester: self, owner: owner, node: node)
            guard let typed = value as? Service else {
                throw .with(.typeMismatch, entry.keyDescription, note: "asked for \(Service.self)")
            }
            return typed
        }
        // Safe: see `resolve(_:as:node:)`.
        let registration = unsafeDowncast(entry, to: Registration<Service>.self)
        return try await registration.resolveAsync(requester: self, owner: owner, node: node)
    }

    func resolveAll<Service: Sendable>(_ type: Service.Type, node: ResolutionNode?) throws(LocatorError) -> [Service] {
        var seen = Set<RegistrationKey>()
        var services: [Service] = []
        var locator: Locator? = self
        let id = ObjectIdentifier(type)
        while let current = locator {
            for entry in current.snapshot() where entry.serviceID == id && !entry.isParameterised {
                guard seen.insert(entry.key).inserted else { continue }
                let registration = unsafeDowncast(entry, to: Registration<Service>.self)
                services.append(try registration.resolve(requester: self, owner: current, node: node))
            }
            locator = current.parent
        }
        return services
    }
}

/// A weak reference to a locator, for providers.
final class WeakLocator: Sendable {
    weak let locator: Locator?

    init(_ locator: Locator) {
        self.locator = locator
    }
}
