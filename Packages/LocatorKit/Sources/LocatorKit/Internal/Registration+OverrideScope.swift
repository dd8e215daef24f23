/// Resolution inside an override scope: instances built on a replaced key stay in the scope.
extension Registration {
    /// What this registration holds right now, for an override scope: the instance or kept failure, and what it
    /// was built on.
    func currentOutcome() throws(LocatorError) -> (
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

    /// What a resolve in `scope` may use without building: the scope's own instance, or this registration's
    /// instance or kept failure when it was built on no replaced key; and this registration's outcome, if any.
    func usableInScope(
        _ scope: OverrideScopeState
    ) throws(LocatorError) -> (
        usable: (Service, Set<RegistrationKey>)?, outcome: Result<Service, LocatorError>?
    ) {
        if let (cached, dependencies) = scope.instance(for: self) {
            return ((try cast(cached), dependencies), nil)
        }
        let (outcome, dependencies) = try currentOutcome()
        if let outcome, !scope.replacesAny(of: dependencies) {
            return ((try outcome.get(), dependencies), outcome)
        }
        return (nil, outcome)
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
        let (usable, outcome) = try usableInScope(scope)
        if let usable {
            return usable
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
        let (usable, outcome) = try usableInScope(scope)
        if let usable {
            return usable
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
    func checkedForLifetime(_ instance: Service) throws(LocatorError) -> Service {
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
    func keep(
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
}
