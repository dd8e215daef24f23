import Synchronization

/// Asynchronous resolution: `async` factories, each creation a strand of its own; a shared creation is one task
/// that every resolve awaits.
extension Registration {
    /// Runs this registration's post-construction hook for `instance` now (asynchronous creations).
    func runHookNow(_ instance: Service, locator: Locator) throws(LocatorError) {
        guard let initCompleted else { return }
        do {
            try initCompleted(Resolver(detachedFrom: locator), instance)
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .hookFailed(self, underlying: error)
        }
    }

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
            if let existing = try graphInstance(in: node) {
                return existing
            }
            let recorder = graphRecorder(for: node)
            let instance = try await createAsync(make, locator: requester, parent: node, recorder: recorder)
            keepGraphInstance(instance, in: node, recorder: recorder)
            return instance
        default:
            return try await resolveSharedAsync(make, owner: owner, node: node)
        }
    }

    func createAsync(
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
    func startAsyncCreation(
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

    func runCreation(
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

    func resolveSharedAsync(
        _ make: @escaping @Sendable (Resolver) async throws -> Service,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        let lock = Coordinator.lock
        var waitedGeneration: Int?
        lock.lock()
        while true {
            switch sharedState(node: node, waitedGeneration: waitedGeneration, canCreate: true) {
            case .settled(let outcome):
                lock.unlock()
                return try outcome.get()
            case .idle:
                _ = startAsyncCreation(make, owner: owner, node: node)
            case .creating(let creation, let task):
                guard let task, let creator = creatingChain else {
                    lock.unlock()
                    return try resolveShared(owner: owner, node: node)
                }
                if let cycle = join(creator, from: node) {
                    lock.unlock()
                    throw cycle
                }
                waitedGeneration = creation
                lock.unlock()
                let result = await task.result
                lock.withLock { leave(from: node) }
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
}
