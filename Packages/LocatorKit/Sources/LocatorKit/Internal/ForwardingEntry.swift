/// A registration that answers for `Forwarded` by resolving another key (``RegisteredService/implements(_:)``),
/// with the parameter types erased.
class ForwardingBase<Forwarded: Sendable>: Entry, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own.

    /// Resolves the target from `owner` and gives it as `Forwarded`.
    func forward(
        owner: Locator,
        node: ResolutionNode?,
        recorder: DependencyRecorder?
    ) throws(LocatorError) -> Forwarded {
        throw .with(.typeMismatch, keyDescription, note: "unsupported registration")
    }

    /// ``forward(owner:node:recorder:)`` for `async` resolves.
    func forwardAsync(
        owner: Locator,
        node: ResolutionNode?,
        recorder: DependencyRecorder?
    ) async throws(LocatorError) -> Forwarded {
        throw .with(.typeMismatch, keyDescription, note: "unsupported registration")
    }
}

/// Answers for `Forwarded` with the instance registered for `target` (a `Target`), so the two types share one
/// instance per lifetime: the target's registration decides how long it lives.
///
/// The target is resolved by key in the locator that owns the forwarding, on every resolve: an override of the
/// target applies to the forwarded type too, and a new registration of the target is followed.
final class ForwardingEntry<Forwarded: Sendable, Target: Sendable>: ForwardingBase<Forwarded>, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable and Sendable.
    let target: RegistrationKey
    private let targetDescription: KeyDescription

    init(key: RegistrationKey, sequence: Int, target: RegistrationKey) {
        self.target = target
        self.targetDescription = KeyDescription(
            serviceType: Target.self,
            name: target.name,
            isTypedKey: target.isTypedKey
        )
        super.init(
            key: key,
            serviceType: Forwarded.self,
            lifetime: .transient,
            sequence: sequence,
            isParameterised: false,
            isAsync: false,
            isForwarding: true
        )
    }

    private func converted(_ value: Target) throws(LocatorError) -> Forwarded {
        guard let forwarded = value as? Forwarded else {
            throw .with(
                .typeMismatch,
                keyDescription,
                note: "\(type(of: value)), registered for \(targetDescription.text), is not a \(Forwarded.self)"
            )
        }
        return forwarded
    }

    /// A forwarding answers with a registration, never with another forwarding: that is how a chain of them can
    /// never loop.
    private func refuseChains(from owner: Locator) throws(LocatorError) {
        if owner.lookupInHierarchy(target)?.entry.isForwarding == true {
            throw .with(
                .typeMismatch,
                keyDescription,
                note: "\(targetDescription.text) is itself forwarded to another type; forward to the registered type"
            )
        }
    }

    override func forward(
        owner: Locator,
        node: ResolutionNode?,
        recorder: DependencyRecorder?
    ) throws(LocatorError) -> Forwarded {
        try refuseChains(from: owner)
        guard let recorder else {
            return try converted(owner.resolve(target, as: Target.self, node: node))
        }
        return try converted(
            owner.resolveTracked(target, as: Target.self, node: node, scope: OverrideScope.active, recorder: recorder)
        )
    }

    override func forwardAsync(
        owner: Locator,
        node: ResolutionNode?,
        recorder: DependencyRecorder?
    ) async throws(LocatorError) -> Forwarded {
        try refuseChains(from: owner)
        return try converted(await owner.resolveAsync(target, as: Target.self, node: node, recorder: recorder))
    }

    override func resolveAny(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) throws(LocatorError) -> any Sendable {
        try forward(owner: owner, node: node, recorder: nil)
    }

    override func resolveAnyAsync(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> any Sendable {
        try await forwardAsync(owner: owner, node: node, recorder: nil)
    }

    override var lifetimeDescription: String { "forwarded to \(targetDescription.text)" }

    override func copy(sequence: Int) -> Entry {
        ForwardingEntry(key: key, sequence: sequence, target: target)
    }
}
