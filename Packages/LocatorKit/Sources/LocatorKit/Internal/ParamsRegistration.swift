/// A parameterised registration of `Service`, with the parameter type erased.
class ParamsProvidingEntry<Service: Sendable>: Entry, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own.
    func resolve(anyParams: Any, requester: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        throw .with(.wrongParams, keyDescription, note: "unsupported registration")
    }

    func resolveAsync(anyParams: Any, requester: Locator, node: ResolutionNode?) async throws(LocatorError) -> Service {
        throw .with(.wrongParams, keyDescription, note: "unsupported registration")
    }

    /// Whether the factory can take `params` (one value, or a tuple of two for ``arity`` 2) after a dynamic cast:
    /// the conversion a resolve falls back to when no factory takes exactly the argument types.
    func accepts(_ params: Any) -> Bool { false }

    /// How many parameters the factory takes (a tuple parameter counts as one).
    var arity: Int { keyDescription.parameterTypes.count }
}

/// A registration whose factory takes a parameter of type `Params`; a new instance on every resolve.
final class ParamsRegistration<Service: Sendable, Params: Sendable>: ParamsProvidingEntry<Service>, @unchecked Sendable
{
    // @unchecked Sendable: every stored property is immutable and Sendable.
    enum Factory: Sendable {
        case sync(@Sendable (Resolver, Params) throws -> Service)
        case async(@Sendable (Resolver, Params) async throws -> Service)
    }

    let factory: Factory
    private let parameterTypes: [any Any.Type]

    init(key: RegistrationKey, sequence: Int, factory: Factory, parameterTypes: [any Any.Type] = [Params.self]) {
        self.factory = factory
        self.parameterTypes = parameterTypes
        var isAsync = false
        if case .async = factory { isAsync = true }
        super.init(
            key: key,
            serviceType: Service.self,
            lifetime: .transient,
            sequence: sequence,
            isParameterised: true,
            isAsync: isAsync,
            parameterTypes: parameterTypes
        )
    }

    override func resolve(anyParams: Any, requester: Locator, node: ResolutionNode?) throws(LocatorError) -> Service {
        try resolve(params: try params(anyParams), requester: requester, node: node)
    }

    override func resolveAsync(
        anyParams: Any,
        requester: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        try await resolveAsync(params: try params(anyParams), requester: requester, node: node)
    }

    override func accepts(_ params: Any) -> Bool { params is Params }

    private func params(_ given: Any) throws(LocatorError) -> Params {
        guard let params = given as? Params else {
            throw .with(.wrongParams, keyDescription, note: "expects \(Params.self), got \(type(of: given))")
        }
        return params
    }

    func defaultParams() throws(LocatorError) -> Params {
        guard let params = nilParams(Params.self) else {
            throw .with(.wrongParams, keyDescription, note: "expects parameters of type \(Params.self)")
        }
        return params
    }

    func resolve(
        params: Params,
        requester: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> Service {
        guard case .sync(let make) = factory else {
            throw .with(.asyncRequired, keyDescription, note: "its factory is async")
        }
        let stack = ThreadContext.stack()
        let parent = node ?? ThreadContext.current(in: stack)
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        let instance: Service
        do {
            instance = try run(make, params: params, requester: requester, parent: parent, stack: stack)
        } catch {
            ThreadContext.runHooksAfterFailure(stack)
            throw error
        }
        try ThreadContext.runHooksIfOutermost(stack)
        return instance
    }

    private func run(
        _ make: @Sendable (Resolver, Params) throws -> Service,
        params: Params,
        requester: Locator,
        parent: ResolutionNode?,
        stack: ThreadContext.StackPointer
    ) throws(LocatorError) -> Service {
        let recorder = parent?.recorder
        let frame = ThreadContext.push(entry: self, parent: parent, node: nil, recorder: recorder, on: stack)
        defer { ThreadContext.pop(stack) }
        do {
            return try make(Resolver(locator: requester, frame: frame, recorder: recorder), params)
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .factoryFailed(parent.path + [self], underlying: error)
        }
    }

    func resolveAsync(
        params: Params,
        requester: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> Service {
        guard case .async(let make) = factory else {
            return try resolve(params: params, requester: requester, node: node)
        }
        let parent = node ?? ResolutionNode.currentTask
        if let parent, parent.contains(self) {
            throw .cycle(parent.path + [self])
        }
        let created = ResolutionNode(entry: self, parent: parent, newStrand: true, recorder: parent?.recorder)
        do {
            return try await ResolutionNode.$currentTask.withValue(created) {
                try await make(Resolver(locator: requester, node: created), params)
            }
        } catch let error as LocatorError where error.carriesPath {
            throw error
        } catch {
            throw .factoryFailed(created.path, underlying: error)
        }
    }

    override func resolveAny(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError)
        -> any Sendable
    {
        try resolve(params: try defaultParams(), requester: requester, node: node)
    }

    override func resolveAnyAsync(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> any Sendable {
        try await resolveAsync(params: try defaultParams(), requester: requester, node: node)
    }

    override var acceptsNoParams: Bool { nilParams(Params.self) != nil }

    override func copy(sequence: Int) -> Entry {
        ParamsRegistration(key: key, sequence: sequence, factory: factory, parameterTypes: parameterTypes)
    }
}
