import Synchronization

/// A registration, type-erased so the table can hold every kind; ``Registration`` and ``ParamsRegistration`` are
/// the typed subclasses.
class Entry: @unchecked Sendable {
    // @unchecked Sendable: immutable except `creatingChain` and `dependencies` (guarded by `Coordinator.lock`),
    // `sequence` (set once, under the locator's write lock, before the entry is inserted and so before any other
    // thread can read it), the atomic flag, and the memory behind `slot`, which is initialised once before
    // `isPublished` is set and never changed after.
    let key: RegistrationKey
    let serviceID: ObjectIdentifier
    let keyDescription: KeyDescription
    let lifetime: Lifetime
    private(set) var sequence: Int
    let isParameterised: Bool
    let isAsync: Bool
    /// Whether this entry answers for another key (``ForwardingEntry``).
    let isForwarding: Bool
    /// Whether this is a ``Registration`` of its service type: neither parameterised nor forwarding. One flag, so
    /// the resolve path decides with one load.
    let isPlain: Bool
    /// Every key the last construction of the shared instance resolved, directly or through other services
    /// (transitively); empty until one finished. Guarded by `Coordinator.lock`. Override scopes read it to find
    /// singletons built on a service that a test replaced.
    var dependencies: Set<RegistrationKey> = []
    /// Set (releasing) once a shared instance is stored and never changes again; readers load it (acquiring) to
    /// skip every lock.
    let isPublished = Atomic<Bool>(false)
    /// The chain creating the instance right now; guarded by `Coordinator.lock`.
    var creatingChain: ResolutionChain?
    /// Memory for one `Service` value: the published shared instance. Raw and untyped so the hot path reads it
    /// with the caller's `Service` type, without looking up the generic subclass's metadata.
    let slot: UnsafeMutableRawPointer

    init<Service>(
        key: RegistrationKey,
        serviceType: Service.Type,
        lifetime: Lifetime,
        sequence: Int,
        isParameterised: Bool,
        isAsync: Bool,
        isForwarding: Bool = false,
        parameterTypes: [any Any.Type] = [],
        description: KeyDescription? = nil
    ) {
        self.key = key
        self.serviceID = ObjectIdentifier(serviceType)
        self.keyDescription =
            description
            ?? KeyDescription(
                serviceType: serviceType,
                name: key.name,
                isTypedKey: key.isTypedKey,
                parameterTypes: parameterTypes
            )
        self.lifetime = lifetime
        self.sequence = sequence
        self.isParameterised = isParameterised
        self.isAsync = isAsync
        self.isForwarding = isForwarding
        self.isPlain = !isParameterised && !isForwarding
        self.slot = .allocate(
            byteCount: Swift.max(MemoryLayout<Service>.size, 1),
            alignment: MemoryLayout<Service>.alignment
        )
    }

    deinit {
        slot.deallocate()
    }

    /// The published instance; call only after `isPublished` loaded `true` and with the entry's service type.
    @inline(__always)
    func publishedInstance<Service>(as type: Service.Type) -> Service {
        slot.assumingMemoryBound(to: Service.self).pointee
    }

    /// The slot of the published instance when this entry holds one of the service type `serviceID`, resolvable
    /// without parameters; nil when the slow path must run.
    @inline(__always)
    func publishedSlot(for serviceID: ObjectIdentifier) -> UnsafeMutableRawPointer? {
        guard self.serviceID == serviceID, isPlain, isPublished.load(ordering: .acquiring) else { return nil }
        return slot
    }

    /// Numbers an entry that was made before it was inserted (`Locator.tryRegister`); call
    /// only under the locator's write lock, before the entry is in a table.
    func assignSequence(_ sequence: Int) {
        self.sequence = sequence
    }

    /// Whether resolving this entry can give an instance made earlier (and so one built on other services).
    var hasSharedFactory: Bool { false }

    /// The lifetime as `dump()` shows it.
    var lifetimeDescription: String { lifetime.description }

    var serviceType: any Any.Type { keyDescription.serviceType }

    /// Resolves synchronously and returns the service as an existential.
    func resolveAny(requester: Locator, owner: Locator, node: ResolutionNode?) throws(LocatorError) -> any Sendable {
        throw .with(.typeMismatch, keyDescription, note: "unsupported registration")
    }

    /// Resolves, awaiting asynchronous factories, and returns the service as an existential.
    func resolveAnyAsync(
        requester: Locator,
        owner: Locator,
        node: ResolutionNode?
    ) async throws(LocatorError) -> any Sendable {
        throw .with(.typeMismatch, keyDescription, note: "unsupported registration")
    }

    /// A copy for a cloned locator: same factory, sharing an instance that already exists.
    func copy(sequence: Int) -> Entry { self }

    /// Whether the registration can be resolved without parameters.
    var acceptsNoParams: Bool { true }

    /// Drops the instance of a scoped registration.
    func resetScope(_ name: String) {}

    /// `created`, `not created`, `failed`, … for `dump()`.
    var stateDescription: String { "" }
}
