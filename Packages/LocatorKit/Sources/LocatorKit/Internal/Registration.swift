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
    private var state: State
    private var generation = 0
    private var lastFailure: (generation: Int, error: LocatorError)?

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
            let recorder = graphRecorder(for: node)
            let instance = try create(make, locator: requester, parent: node, stack: stack, recorder: recorder)
            keepGraphInstance(instance, in: node, recorder: recorder)
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
        stack: ThreadContext.StackPointer?,
        recorder: DependencyRecorder? = nil
    ) throws(LocatorError) -> Service {
        #if LOCATORKIT_NO_CYCLE_DETECTION
        // Measurement-only build (see Scripts/callgrind.sh): no path, no cycle detection, so the benchmark can
        // report what detection costs. Never shipped: without a path a cycle overflows the stack.
        let instance: Service
        do {
            instance = try make(Resolver(locator: locator, frame: 0))
        } catch {
            throw .factoryFailed([self], underlying: error)
        }
        try runHookNow(instance, locator: locator)
        return instance
        #else
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        let stack = stack ?? ThreadContext.stack()
        let instance: Service
        do {
            instance = try run(make, locator: locator, parent: parent, node: nil, stack: stack, recorder: recorder)
        } catch {
            ThreadContext.runHooksAfterFailure(stack)
            throw error
        }
        if initCompleted != nil {
            queueHook(instance, locator: locator, stack: stack)
        }
        try ThreadContext.runHooksIfOutermost(stack)
        return instance
        #endif
    }

    /// While a shared instance is being made, a graph instance records what it is built on by itself (passing it
    /// on to the construction), so a later construction in the same root resolve that reuses the graph instance
    /// can add the same keys.
    private func graphRecorder(for node: ResolutionNode) -> DependencyRecorder? {
        node.recorder.map { DependencyRecorder(passingTo: $0) }
    }

    /// Keeps a graph instance for the rest of its root resolve, and what it was built on.
    private func keepGraphInstance(_ instance: Service, in node: ResolutionNode, recorder: DependencyRecorder?) {
        let built = recorder?.close()
        Coordinator.lock.withLock {
            node.chain.setGraphInstance(instance, for: self)
            if let built { dependencies = built }
        }
    }

    /// Queues this registration's post-construction hook for `instance`; it runs once the outermost synchronous
    /// resolve on this thread is done, so it may resolve services that depend on `instance` (a back-reference).
    private func queueHook(_ instance: Service, locator: Locator, stack: ThreadContext.StackPointer) {
        guard let initCompleted else { return }
        ThreadContext.enqueue(
            ThreadContext.PendingHook(entry: self) { try initCompleted(Resolver(detachedFrom: locator), instance) },
            on: stack
        )
    }

    /// Runs this registration's post-construction hook for `instance` now (asynchronous creations).
    private func runHookNow(_ instance: Service, locator: Locator) throws(LocatorError) {
        guard let initCompleted else { return }
        do {
            try initCompleted(Resolver(detachedFrom: locator), instance)
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .hookFailed(self, underlying: error)
        }
    }

    /// Runs the synchronous factory in a frame for this registration, called from `parent`; `node` is the
    /// frame's node when it had to exist beforehand (a shared creation records it as the creator).
    @inline(__always)
    private func run(
        _ make: @Sendable (Resolver) throws -> Service,
        locator: Locator,
        parent: ResolutionNode?,
        node: ResolutionNode?,
        stack: ThreadContext.StackPointer,
        recorder own: DependencyRecorder? = nil
    ) throws(LocatorError) -> Service {
        // A shared construction's node carries its own recorder, a graph instance may bring one; any other
        // factory records into its caller's.
        let recorder = own ?? node?.recorder ?? parent?.recorder
        let frame = ThreadContext.push(entry: self, parent: parent, node: node, recorder: recorder, on: stack)
        defer { ThreadContext.pop(stack) }
        do {
            if let node {
                return try make(Resolver(locator: locator, node: node))
            }
            return try make(Resolver(locator: locator, frame: frame, recorder: recorder))
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
                let recorder = DependencyRecorder()
                let created = ResolutionNode(entry: self, parent: node, recorder: recorder)
                state = .creating(generation: creation, task: nil)
                creatingChain = created.chain
                lock.unlock()
                let stack = ThreadContext.stack()
                let result: Result<Service, LocatorError>
                do {
                    result = .success(try run(make, locator: owner, parent: node, node: created, stack: stack))
                } catch {
                    result = .failure(error)
                }
                switch complete(generation: creation, result, dependencies: recorder.close()) {
                case .success(let instance):
                    queueHook(instance, locator: owner, stack: stack)
                    try ThreadContext.runHooksIfOutermost(stack)
                    return instance
                case .failure(let error):
                    ThreadContext.runHooksAfterFailure(stack)
                    throw error
                }
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

    /// Stores the outcome of creation `generation` and what it was built on, and wakes waiters.
    private func complete(
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
            let recorder = graphRecorder(for: node)
            let instance = try await createAsync(make, locator: requester, parent: node, recorder: recorder)
            keepGraphInstance(instance, in: node, recorder: recorder)
            return instance
        default:
            return try await resolveSharedAsync(make, owner: owner, node: node)
        }
    }

    private func createAsync(
        _ make: @Sendable (Resolver) async throws -> Service,
        locator: Locator,
        parent: ResolutionNode?,
        recorder: DependencyRecorder? = nil
    ) async throws(LocatorError) -> Service {
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        // Each asynchronous creation is a strand of its own: its factory may resolve concurrently.
        let node = ResolutionNode(entry: self, parent: parent, newStrand: true, recorder: recorder ?? parent?.recorder)
        let instance = try await runCreation(make, owner: locator, node: node)
        try runHookNow(instance, locator: locator)
        return instance
    }

    /// Starts the single-flight creation task; call with `Coordinator.lock` held and the state idle.
    private func startAsyncCreation(
        _ make: @escaping @Sendable (Resolver) async throws -> Service,
        owner: Locator,
        node: ResolutionNode?
    ) -> Task<Service, any Error> {
        generation += 1
        let creation = generation
        let recorder = DependencyRecorder()
        let created = ResolutionNode(entry: self, parent: node, newStrand: true, recorder: recorder)
        creatingChain = created.chain
        let task = Task<Service, any Error> {
            let result: Result<Service, LocatorError>
            do throws(LocatorError) {
                result = .success(try await self.runCreation(make, owner: owner, node: created))
            } catch {
                result = .failure(error)
            }
            let instance = try self.complete(generation: creation, result, dependencies: recorder.close()).get()
            try self.runHookNow(instance, locator: owner)
            return instance
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

    // MARK: - Override scopes

    /// What this registration holds right now, for an override scope: the instance or kept failure, and what it
    /// was built on.
    private func currentOutcome() throws(LocatorError) -> (
        outcome: Result<Service, LocatorError>?, dependencies: Set<RegistrationKey>
    ) {
        let lock = Coordinator.lock
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .value(let instance):
            return (.success(instance), dependencies)
        case .weak(let box):
            guard let object = box.object else { return (nil, []) }
            return (.success(try cast(object)), dependencies)
        case .failed(let error):
            return (.failure(error), dependencies)
        case .idle, .creating:
            return (nil, [])
        }
    }

    /// Resolves this shared registration inside an override scope.
    ///
    /// An instance (or kept failure) whose construction touched a replaced key is not used: the scope builds its
    /// own, keeps it for the rest of the scope and never stores it here. An instance not made yet is built apart
    /// from the shared creation; when it touched no replaced key it becomes the registration's instance as if made
    /// outside, otherwise it stays in the scope. Returns the instance and what it was built on.
    func resolveInScope(
        _ scope: OverrideScopeState,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> (Service, Set<RegistrationKey>) {
        if let (cached, dependencies) = scope.instance(for: self) {
            return (try cast(cached), dependencies)
        }
        let (outcome, dependencies) = try currentOutcome()
        if let outcome, !scope.replacesAny(of: dependencies) {
            return (try outcome.get(), dependencies)
        }
        guard case .sync(let make) = factory else { throw asyncRequired() }
        if let node, node.contains(self) {
            throw .cycle(node.path + [self])
        }
        let recorder = DependencyRecorder()
        let created = ResolutionNode(entry: self, parent: node, recorder: recorder)
        let stack = ThreadContext.stack()
        let instance: Service
        do {
            instance = try checkedForLifetime(try run(make, locator: owner, parent: node, node: created, stack: stack))
        } catch {
            ThreadContext.runHooksAfterFailure(stack)
            throw error
        }
        let built = recorder.close()
        let (kept, isOurs) = keep(instance, dependencies: built, in: scope, adoptable: outcome == nil)
        if isOurs {
            queueHook(kept, locator: owner, stack: stack)
        }
        try ThreadContext.runHooksIfOutermost(stack)
        return (kept, built)
    }

    /// ``resolveInScope(_:owner:node:)`` for `async` resolves, awaiting an `async` factory.
    func resolveInScopeAsync(
        _ scope: OverrideScopeState,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> (Service, Set<RegistrationKey>) {
        guard case .async(let make) = factory else {
            return try resolveInScope(scope, owner: owner, node: node)
        }
        if let (cached, dependencies) = scope.instance(for: self) {
            return (try cast(cached), dependencies)
        }
        let (outcome, dependencies) = try currentOutcome()
        if let outcome, !scope.replacesAny(of: dependencies) {
            return (try outcome.get(), dependencies)
        }
        if let node, node.contains(self) {
            throw .cycle(node.path + [self])
        }
        let recorder = DependencyRecorder()
        let created = ResolutionNode(entry: self, parent: node, newStrand: true, recorder: recorder)
        let instance = try checkedForLifetime(try await runCreation(make, owner: owner, node: created))
        let built = recorder.close()
        let (kept, isOurs) = keep(instance, dependencies: built, in: scope, adoptable: outcome == nil)
        if isOurs {
            try runHookNow(kept, locator: owner)
        }
        return (kept, built)
    }

    /// A weak lifetime needs a class instance (as ``complete(generation:_:dependencies:)`` checks).
    private func checkedForLifetime(_ instance: Service) throws(LocatorError) -> Service {
        guard lifetime.kind != .weak || isClassInstance(instance) else {
            throw .with(
                .typeMismatch,
                keyDescription,
                note: "the weak lifetime needs a class instance, got \(type(of: instance))"
            )
        }
        return instance
    }

    /// Stores an instance built inside `scope`: in this registration when it touched no replaced key and nothing
    /// was made meanwhile, else in the scope. Returns the instance to use and whether it is the one just built.
    private func keep(
        _ instance: Service,
        dependencies: Set<RegistrationKey>,
        in scope: OverrideScopeState,
        adoptable: Bool
    ) -> (Service, Bool) {
        if adoptable, !scope.replacesAny(of: dependencies) {
            switch adopt(instance, dependencies: dependencies) {
            case .adopted:
                return (instance, true)
            case .existing(let existing):
                return (existing, false)
            case .busy:
                break
            }
        }
        let (stored, inserted) = scope.store(instance, dependencies: dependencies, for: self)
        guard !inserted, let typed = stored as? Service else { return (instance, true) }
        return (typed, false)
    }

    private enum Adoption {
        case adopted
        case existing(Service)
        case busy
    }

    /// Makes `instance` (built in an override scope on no replaced key) this registration's instance, unless one
    /// exists or is being made.
    private func adopt(_ instance: Service, dependencies: Set<RegistrationKey>) -> Adoption {
        let lock = Coordinator.lock
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        switch state {
        case .value(let existing):
            return .existing(existing)
        case .weak(let box):
            if let object = box.object {
                return (object as? Service).map(Adoption.existing) ?? .busy
            }
        case .creating, .failed:
            return .busy
        case .idle:
            break
        }
        self.dependencies = dependencies
        switch lifetime.kind {
        case .weak:
            state = .weak(WeakBox(instance as AnyObject))
        case .scoped:
            state = .value(instance)
        default:
            publish(instance)
        }
        return .adopted
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
