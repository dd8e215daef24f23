import Synchronization

/// Synchronous resolution: the lock-free read of a published instance, transient and graph creation on the
/// caller's thread, and single-flight creation of shared instances that waits on `Coordinator.lock`.
extension Registration {
    @inline(__always)
    func resolve(requester: Locator, owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        if isPublished.load(ordering: .acquiring) {
            return publishedInstance(as: Service.self)
        }
        return try resolveSlow(requester: requester, owner: owner, node: node)
    }

    func resolveSlow(requester: Locator, owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
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
            if let existing = try graphInstance(in: node) {
                return existing
            }
            let recorder = graphRecorder(for: node)
            let instance = try create(make, locator: requester, parent: node, stack: stack, recorder: recorder)
            keepGraphInstance(instance, in: node, recorder: recorder)
            return instance
        default:
            return try resolveShared(owner: owner, node: node)
        }
    }

    /// Runs the synchronous factory on a new node of the path, detecting a cycle first.
    @inline(__always)
    func create(
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

    /// Queues this registration's post-construction hook for `instance`; it runs once the outermost synchronous
    /// resolve on this thread is done, so it may resolve services that depend on `instance` (a back-reference).
    func queueHook(_ instance: Service, locator: Locator, stack: ThreadContext.StackPointer) {
        guard let initCompleted else { return }
        ThreadContext.enqueue(
            ThreadContext.PendingHook(entry: self) { try initCompleted(Resolver(detachedFrom: locator), instance) },
            on: stack
        )
    }

    /// Runs the synchronous factory in a frame for this registration, called from `parent`; `node` is the
    /// frame's node when it had to exist beforehand (a shared creation records it as the creator).
    @inline(__always)
    func run(
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
    func resolveShared(owner: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        let lock = Coordinator.lock
        let syncFactory: (@Sendable (Resolver) throws -> Service)? =
            if case .sync(let make) = factory { make } else { nil }
        var waitedGeneration: Int?
        lock.lock()
        while true {
            switch sharedState(node: node, waitedGeneration: waitedGeneration, canCreate: syncFactory != nil) {
            case .settled(let outcome):
                lock.unlock()
                return try outcome.get()
            case .idle:
                // `sharedState` reports `.idle` only to a resolve that can create.
                guard let make = syncFactory else {
                    lock.unlock()
                    throw asyncRequired()
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
                if let cycle = join(creator, from: node) {
                    lock.unlock()
                    throw cycle
                }
                waitedGeneration = creation
                while case .creating(let current, _) = state, current == creation {
                    lock.wait()
                }
                leave(from: node)
            }
        }
    }
}
