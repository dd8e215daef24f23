import Synchronization

/// A registration of `Service` without parameters, with its factory and (for shared lifetimes) its instance.
final class Registration<Service: Sendable>: Entry, @unchecked Sendable {
    // @unchecked Sendable: `state`, `generation` and `lastFailure` are guarded by `Coordinator.lock`; `slot` is
    // initialised once, under that lock (or before the entry is shared), before `isPublished` is stored with
    // release ordering, and only read after an acquiring load of `isPublished` returned true, so readers never
    // see it change.
    enum Factory: Sendable {
        case none
        case sync(@Sendable (Resolver) throws -> Service)
        case async(@Sendable (Resolver) async throws -> Service)
    }

    enum State {
        case idle
        case creating(generation: Int, task: Task<Service, any Error>?)
        case value(Service)
        case weak(WeakBox)
        case failed(LocatorError)
    }

    /// Runs after an instance is made (`initCompleted`); see ``queueHook(_:locator:stack:)``.
    typealias Hook = @Sendable (Resolver, Service) throws -> Void

    let factory: Factory
    let initCompleted: Hook?
    var state: State
    var generation = 0
    var lastFailure: (generation: Int, error: LocatorError)?

    /// A registration of a factory; `description` names it in paths and errors when it is not its key's service
    /// (a ``Lazy`` handle's own creation).
    init(
        key: RegistrationKey,
        lifetime: Lifetime,
        sequence: Int,
        factory: Factory,
        initCompleted: Hook? = nil,
        description: KeyDescription? = nil
    ) {
        self.factory = factory
        self.initCompleted = initCompleted
        self.state = .idle
        var isAsync = false
        if case .async = factory { isAsync = true }
        super.init(
            key: key,
            serviceType: Service.self,
            lifetime: lifetime,
            sequence: sequence,
            isParameterised: false,
            isAsync: isAsync,
            description: description
        )
    }

    /// A registration of an existing instance, held strongly.
    convenience init(key: RegistrationKey, sequence: Int, instance: Service) {
        self.init(key: key, lifetime: Lifetime(.instance), sequence: sequence, factory: .none)
        publish(instance)
    }

    /// A registration of an existing instance, held weakly.
    convenience init(key: RegistrationKey, sequence: Int, weakInstance: AnyObject) {
        self.init(key: key, lifetime: Lifetime(.weakInstance), sequence: sequence, factory: .none)
        state = .weak(WeakBox(weakInstance))
    }

    deinit {
        if isPublished.load(ordering: .acquiring) {
            slot.assumingMemoryBound(to: Service.self).deinitialize(count: 1)
        }
    }

    func publish(_ instance: Service) {
        slot.initializeMemory(as: Service.self, to: instance)
        state = .value(instance)
        isPublished.store(true, ordering: .releasing)
    }

    // MARK: - Shared by the resolution paths

    func cast(_ value: Any) throws(LocatorError) -> Service {
        guard let typed = value as? Service else {
            throw .with(.typeMismatch, keyDescription, note: "holds \(type(of: value))")
        }
        return typed
    }

    func asyncRequired() -> LocatorError {
        .with(.asyncRequired, keyDescription, note: "its factory is async and it has not been created yet")
    }

    /// While a shared instance is being made, a graph instance records what it is built on by itself (passing it
    /// on to the construction), so a later construction in the same root resolve that reuses the graph instance
    /// can add the same keys.
    func graphRecorder(for node: ResolutionNode) -> DependencyRecorder? {
        node.recorder.map { DependencyRecorder(passingTo: $0) }
    }

    /// Keeps a graph instance for the rest of its root resolve, and what it was built on.
    func keepGraphInstance(_ instance: Service, in node: ResolutionNode, recorder: DependencyRecorder?) {
        let built = recorder?.close()
        Coordinator.lock.withLock {
            node.chain.setGraphInstance(instance, for: self)
            if let built { dependencies = built }
        }
    }

    /// What a shared resolve finds on one turn of its loop.
    enum SharedState {
        /// The instance, or the failure, to return at once.
        case settled(Result<Service, LocatorError>)
        /// Nothing is made, and nothing stops this resolve from making it.
        case idle
        /// Creation `generation` runs (`task` is an `async` factory's).
        case creating(generation: Int, task: Task<Service, any Error>?)
    }

    /// One turn of a shared resolve from `node`, synchronous or not, with `Coordinator.lock` held (it stays held).
    /// `waitedGeneration` is the creation the resolve waited for: its failure is reported, not tried again.
    /// `canCreate` tells whether the resolve can run the factory (a synchronous one cannot run an `async` factory).
    func sharedState(node: ResolutionNode?, waitedGeneration: Int?, canCreate: Bool) -> SharedState {
        switch state {
        case .value(let instance):
            return .settled(.success(instance))
        case .failed(let error):
            return .settled(.failure(error))
        case .weak(let box):
            if let object = box.object {
                return .settled(Result { () throws(LocatorError) in try cast(object) })
            }
            guard canCreate else {
                if case .none = factory {
                    return .settled(
                        .failure(.with(.released, keyDescription, note: "the weakly registered instance was released"))
                    )
                }
                return .settled(.failure(asyncRequired()))
            }
            state = .idle
            return sharedState(node: node, waitedGeneration: waitedGeneration, canCreate: canCreate)
        case .idle:
            if let waitedGeneration, let lastFailure, lastFailure.generation == waitedGeneration {
                return .settled(.failure(lastFailure.error))
            }
            guard canCreate else { return .settled(.failure(asyncRequired())) }
            if let node, node.contains(self) {
                return .settled(.failure(.cycle(node.path + [self])))
            }
            return .idle
        case .creating(let generation, let task):
            return .creating(generation: generation, task: task)
        }
    }

    /// Notes that a resolve from `node` waits for the creation `creator` runs, with `Coordinator.lock` held; returns
    /// the cycle that waiting would close instead, if any. A root resolve (no node) owns no creation, so it cannot
    /// close a cycle: it just waits.
    func join(_ creator: ResolutionChain, from node: ResolutionNode?) -> LocatorError? {
        guard let node else { return nil }
        let waiter = node.chain
        if creator === waiter || node.contains(self) {
            return .cycle(node.path + [self])
        }
        if let cycle = Coordinator.cycle(waiter: waiter, waiterNode: node, entry: self, owner: creator) {
            return .cycle(cycle)
        }
        waiter.waitingFor = self
        waiter.waitingNode = node
        return nil
    }

    /// Ends the wait ``join(_:from:)`` noted, with `Coordinator.lock` held.
    func leave(from node: ResolutionNode?) {
        guard let waiter = node?.chain, waiter.waitingFor === self else { return }
        waiter.waitingFor = nil
        waiter.waitingNode = nil
    }

    /// The graph instance `node`'s root resolve already made of this registration, if any.
    func graphInstance(in node: ResolutionNode) throws(LocatorError) -> Service? {
        guard let existing = Coordinator.lock.withLock({ node.chain.graphInstance(for: self) }) else { return nil }
        return try cast(existing)
    }

    /// Stores the outcome of creation `generation` and what it was built on, and wakes waiters.
    func complete(
        generation: Int,
        _ result: Result<Service, LocatorError>,
        dependencies: Set<RegistrationKey>
    ) -> Result<Service, LocatorError> {
        let lock = Coordinator.lock
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        creatingChain = nil
        self.dependencies = dependencies
        switch result {
        case .success(let instance):
            switch lifetime.kind {
            case .weak:
                guard isClassInstance(instance) else {
                    let error = LocatorError.with(
                        .typeMismatch,
                        keyDescription,
                        note: "the weak lifetime needs a class instance, got \(type(of: instance))"
                    )
                    state = .idle
                    lastFailure = (generation, error)
                    return .failure(error)
                }
                state = .weak(WeakBox(instance as AnyObject))
            case .scoped:
                state = .value(instance)
            default:
                publish(instance)
            }
            return result
        case .failure(let error):
            if lifetime.kind == .eager {
                state = .failed(error)
            } else {
                state = .idle
                lastFailure = (generation, error)
            }
            return result
        }
    }

    /// Runs the eager factory at registration; the outcome is kept. Inside an override scope, an instance built on
    /// a replaced service stays in the scope and the registration is created again on its first resolve outside.
    func createEagerly(owner: Locator) {
        if let scope = OverrideScope.active {
            if case .sync = factory {
                _ = try? resolveInScope(scope, owner: owner, node: nil)
            }
            return
        }
        switch factory {
        case .sync:
            _ = try? resolveShared(owner: owner, node: nil)
        case .async(let make):
            Coordinator.lock.withLock {
                _ = startAsyncCreation(make, owner: owner, node: nil)
            }
        case .none:
            break
        }
    }

    // MARK: - Type-erased operations

    override func resolveAny(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError)
        -> any Sendable
    {
        if let scope = OverrideScope.active, hasSharedFactory {
            return try resolveInScope(scope, owner: owner, node: node).0
        }
        return try resolve(requester: requester, owner: owner, node: node)
    }

    override func resolveAnyAsync(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> any Sendable {
        if let scope = OverrideScope.active, hasSharedFactory {
            return try await resolveInScopeAsync(scope, owner: owner, node: node).0
        }
        return try await resolveAsync(requester: requester, owner: owner, node: node)
    }

    /// Whether a resolve can give an instance made earlier, whose ``Entry/dependencies`` then tell what it was
    /// built on: shared instances, and graph instances reused within a root resolve.
    var recordsDependencies: Bool { hasSharedFactory || lifetime.kind == .graph }

    override var hasSharedFactory: Bool {
        guard lifetime.isShared else { return false }
        if case .none = factory { return false }
        return true
    }

    override func copy(sequence: Int) -> Entry {
        let copy = Registration(
            key: key,
            lifetime: lifetime,
            sequence: sequence,
            factory: factory,
            initCompleted: initCompleted,
            description: keyDescription
        )
        Coordinator.lock.withLock {
            copy.dependencies = dependencies
            switch state {
            case .value(let instance):
                if case .scoped = lifetime.kind {
                    copy.state = .value(instance)
                } else {
                    copy.publish(instance)
                }
            case .weak(let box):
                copy.state = .weak(box)
            case .failed(let error):
                copy.state = .failed(error)
            case .idle, .creating:
                break
            }
        }
        return copy
    }

    override func resetScope(_ name: String) {
        guard case .scoped(let scope) = lifetime.kind, scope == name else { return }
        Coordinator.lock.withLock {
            if case .value = state {
                state = .idle
            }
        }
    }

    override var stateDescription: String {
        Coordinator.lock.withLock {
            switch state {
            case .idle:
                lifetime.isShared ? "not created" : ""
            case .creating:
                "creating"
            case .value:
                "created"
            case .weak(let box):
                box.object == nil ? "released" : "alive"
            case .failed:
                "failed"
            }
        }
    }
}
