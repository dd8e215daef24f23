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

    let factory: Factory
    private var state: State
    private var generation = 0
    private var lastFailure: (generation: Int, error: LocatorError)?

    init(key: RegistrationKey, lifetime: Lifetime, sequence: Int, factory: Factory) {
        self.factory = factory
        self.state = .idle
        var isAsync = false
        if case .async = factory { isAsync = true }
        super.init(
            key: key,
            serviceType: Service.self,
            lifetime: lifetime,
            sequence: sequence,
            isParameterised: false,
            isAsync: isAsync
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

    private func publish(_ instance: Service) {
        slot.initializeMemory(as: Service.self, to: instance)
        state = .value(instance)
        isPublished.store(true, ordering: .releasing)
    }

    // MARK: - Synchronous resolution

    @inline(__always)
    func resolve(requester: Locator, owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        if isPublished.load(ordering: .acquiring) {
            return publishedInstance(as: Service.self)
        }
        return try resolveSlow(requester: requester, owner: owner, node: node)
    }

    private func resolveSlow(requester: Locator, owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service
    {
        #if LOCATORKIT_NO_CYCLE_DETECTION
        let node = node
        let stack = ThreadContext.StackPointer?.none
        #else
        // The one thread-local read of this resolve: the frame stack, for the caller's frame (a factory resolving
        // through a captured locator) and for this factory's own frame.
        let stack = ThreadContext.stack()
        let node = node ?? ThreadContext.current(in: stack)
        #endif
        switch lifetime.kind {
        case .transient:
            guard case .sync(let make) = factory else { throw asyncRequired() }
            return try create(make, locator: requester, parent: node, stack: stack)
        case .graph:
            guard case .sync(let make) = factory else { throw asyncRequired() }
            // A root resolve has nothing to share its graph instance with.
            guard let node else {
                return try create(make, locator: requester, parent: nil, stack: stack)
            }
            if let existing = Coordinator.lock.withLock({ node.chain.graphInstance(for: self) }) {
                return try cast(existing)
            }
            let instance = try create(make, locator: requester, parent: node, stack: stack)
            Coordinator.lock.withLock { node.chain.setGraphInstance(instance, for: self) }
            return instance
        default:
            return try resolveShared(owner: owner, node: node)
        }
    }

    private func cast(_ value: Any) throws(LocatorError) -> Service {
        guard let typed = value as? Service else {
            throw .with(.typeMismatch, keyDescription, note: "holds \(type(of: value))")
        }
        return typed
    }

    private func asyncRequired() -> LocatorError {
        .with(.asyncRequired, keyDescription, note: "its factory is async and it has not been created yet")
    }

    /// Runs the synchronous factory on a new node of the path, detecting a cycle first.
    @inline(__always)
    private func create(
        _ make: @Sendable (Resolver) throws -> Service,
        locator: Locator,
        parent: ResolutionNode?,
        stack: ThreadContext.StackPointer?
    ) throws(LocatorError) -> Service {
        #if LOCATORKIT_NO_CYCLE_DETECTION
        // Measurement-only build (see Scripts/callgrind.sh): no path, no cycle detection, so the benchmark can
        // report what detection costs. Never shipped: without a path a cycle overflows the stack.
        do {
            return try make(Resolver(locator: locator, frame: 0))
        } catch {
            throw .factoryFailed([self], underlying: error)
        }
        #else
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        return try run(make, locator: locator, parent: parent, node: nil, stack: stack ?? ThreadContext.stack())
        #endif
    }

    /// Runs the synchronous factory in a frame for this registration, called from `parent`; `node` is the
    /// frame's node when it had to exist beforehand (a shared creation records it as the creator).
    @inline(__always)
    private func run(
        _ make: @Sendable (Resolver) throws -> Service,
        locator: Locator,
        parent: ResolutionNode?,
        node: ResolutionNode?,
        stack: ThreadContext.StackPointer
    ) throws(LocatorError) -> Service {
        let frame = ThreadContext.push(entry: self, parent: parent, node: node, on: stack)
        defer { ThreadContext.pop(stack) }
        do {
            if let node {
                return try make(Resolver(locator: locator, node: node))
            }
            return try make(Resolver(locator: locator, frame: frame))
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .factoryFailed(parent.path + [self], underlying: error)
        }
    }

    /// The shared lifetimes (`eager`, `lazy`, `weak`, `scoped`, instances): single-flight creation with waiting,
    /// cycle detection across threads, and no lock held while the factory runs.
    private func resolveShared(owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        let lock = Coordinator.lock
        var waitedGeneration: Int?
        lock.lock()
        let chain = node?.chain
        while true {
            switch state {
            case .value(let instance):
                lock.unlock()
                return instance
            case .failed(let error):
                lock.unlock()
                throw error
            case .weak(let box):
                if let object = box.object {
                    lock.unlock()
                    return try cast(object)
                }
                guard case .sync = factory else {
                    lock.unlock()
                    if case .none = factory {
                        throw .with(.released, keyDescription, note: "the weakly registered instance was released")
                    }
                    throw asyncRequired()
                }
                state = .idle
            case .idle:
                if let waitedGeneration, let lastFailure, lastFailure.generation == waitedGeneration {
                    lock.unlock()
                    throw lastFailure.error
                }
                guard case .sync(let make) = factory else {
                    lock.unlock()
                    throw asyncRequired()
                }
                if let node, node.contains(self) {
                    lock.unlock()
                    throw .cycle(node.path + [self])
                }
                generation += 1
                let creation = generation
                let created = ResolutionNode(entry: self, parent: node)
                state = .creating(generation: creation, task: nil)
                creatingChain = created.chain
                lock.unlock()
                let result: Result<Service, LocatorError>
                do {
                    result = .success(
                        try run(make, locator: owner, parent: node, node: created, stack: ThreadContext.stack())
                    )
                } catch {
                    result = .failure(error)
                }
                return try complete(generation: creation, result).get()
            case .creating(let creation, let task):
                guard task == nil, let creator = creatingChain else {
                    lock.unlock()
                    throw asyncRequired()
                }
                // A root resolve (no node) owns no creation, so it cannot close a cycle: it just waits.
                if let waiter = chain {
                    if creator === waiter || node?.contains(self) == true {
                        lock.unlock()
                        throw .cycle(node.path + [self])
                    }
                    if let cycle = Coordinator.cycle(waiter: waiter, waiterNode: node, entry: self, owner: creator) {
                        lock.unlock()
                        throw .cycle(cycle)
                    }
                    waiter.waitingFor = self
                    waiter.waitingNode = node
                }
                waitedGeneration = creation
                while case .creating(let current, _) = state, current == creation {
                    lock.wait()
                }
                chain?.waitingFor = nil
                chain?.waitingNode = nil
            }
        }
    }

    /// Stores the outcome of creation `generation` and wakes waiters.
    private func complete(generation: Int, _ result: Result<Service, LocatorError>) -> Result<Service, LocatorError> {
        let lock = Coordinator.lock
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        creatingChain = nil
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

    /// Runs the eager factory at registration; the outcome is kept.
    func createEagerly(owner: Locator) {
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

    // MARK: - Asynchronous resolution

    func resolveAsync(requester: Locator, owner: Locator, node: ResolutionNode?) async throws(LocatorError) -> Service {
        if isPublished.load(ordering: .acquiring) {
            return publishedInstance(as: Service.self)
        }
        let node = node ?? ResolutionNode.currentTask
        guard case .async(let make) = factory else {
            return try resolveSlow(requester: requester, owner: owner, node: node)
        }
        switch lifetime.kind {
        case .transient:
            return try await createAsync(make, locator: requester, parent: node)
        case .graph:
            guard let node else {
                return try await createAsync(make, locator: requester, parent: nil)
            }
            if let existing = Coordinator.lock.withLock({ node.chain.graphInstance(for: self) }) {
                return try cast(existing)
            }
            let instance = try await createAsync(make, locator: requester, parent: node)
            Coordinator.lock.withLock { node.chain.setGraphInstance(instance, for: self) }
            return instance
        default:
            return try await resolveSharedAsync(make, owner: owner, node: node)
        }
    }

    private func createAsync(
        _ make: @Sendable (Resolver) async throws -> Service,
        locator: Locator,
        parent: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        // Each asynchronous creation is a strand of its own: its factory may resolve concurrently.
        let node = ResolutionNode(entry: self, parent: parent, newStrand: true)
        return try await runCreation(make, owner: locator, node: node)
    }

    /// Starts the single-flight creation task; call with `Coordinator.lock` held and the state idle.
    private func startAsyncCreation(
        _ make: @escaping @Sendable (Resolver) async throws -> Service,
        owner: Locator,
        node: ResolutionNode?
    ) -> Task<Service, any Error> {
        generation += 1
        let creation = generation
        let created = ResolutionNode(entry: self, parent: node, newStrand: true)
        creatingChain = created.chain
        let task = Task<Service, any Error> {
            let result: Result<Service, LocatorError>
            do throws(LocatorError) {
                result = .success(try await self.runCreation(make, owner: owner, node: created))
            } catch {
                result = .failure(error)
            }
            return try self.complete(generation: creation, result).get()
        }
        state = .creating(generation: creation, task: task)
        return task
    }

    private func runCreation(
        _ make: @Sendable (Resolver) async throws -> Service,
        owner: Locator,
        node created: ResolutionNode
    ) async throws(LocatorError) -> Service {
        do {
            return try await ResolutionNode.$currentTask.withValue(created) {
                try await make(Resolver(locator: owner, node: created))
            }
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .factoryFailed(created.path, underlying: error)
        }
    }

    private func resolveSharedAsync(
        _ make: @escaping @Sendable (Resolver) async throws -> Service,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        let lock = Coordinator.lock
        var waitedGeneration: Int?
        lock.lock()
        while true {
            switch state {
            case .value(let instance):
                lock.unlock()
                return instance
            case .failed(let error):
                lock.unlock()
                throw error
            case .weak(let box):
                if let object = box.object {
                    lock.unlock()
                    return try cast(object)
                }
                state = .idle
            case .idle:
                if let waitedGeneration, let lastFailure, lastFailure.generation == waitedGeneration {
                    lock.unlock()
                    throw lastFailure.error
                }
                if let node, node.contains(self) {
                    lock.unlock()
                    throw .cycle(node.path + [self])
                }
                _ = startAsyncCreation(make, owner: owner, node: node)
            case .creating(let creation, let task):
                guard let task, let creator = creatingChain else {
                    lock.unlock()
                    return try resolveShared(owner: owner, node: node)
                }
                if node?.contains(self) == true {
                    lock.unlock()
                    throw .cycle(node.path + [self])
                }
                let waiter = node?.chain
                if let waiter {
                    if let cycle = Coordinator.cycle(waiter: waiter, waiterNode: node, entry: self, owner: creator) {
                        lock.unlock()
                        throw .cycle(cycle)
                    }
                    waiter.waitingFor = self
                    waiter.waitingNode = node
                }
                waitedGeneration = creation
                lock.unlock()
                let result = await task.result
                lock.lock()
                if let waiter, waiter.waitingFor === self {
                    waiter.waitingFor = nil
                    waiter.waitingNode = nil
                }
                lock.unlock()
                switch result {
                case .success(let instance):
                    return instance
                case .failure(let error as LocatorError):
                    throw error
                case .failure(let error):
                    throw .factoryFailed(node.path + [self], underlying: error)
                }
            }
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
        try resolve(requester: requester, owner: owner, node: node)
    }

    override func resolveAnyAsync(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> any Sendable {
        try await resolveAsync(requester: requester, owner: owner, node: node)
    }

    override func copy(sequence: Int) -> Entry {
        let copy = Registration(key: key, lifetime: lifetime, sequence: sequence, factory: factory)
        Coordinator.lock.withLock {
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
