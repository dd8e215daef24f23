import Synchronization

/// A service locator: register services by type, name or typed key, then resolve them from anywhere.
///
/// A locator is `Sendable`: register, resolve, freeze and clone from any thread or task. Resolving an instance
/// that already exists takes one short lock (none once the locator is ``freeze(denyClone:)``-n) and no lock is
/// ever held while a factory runs.
///
/// ```swift
/// let locator = Locator()
/// try locator.register(Clock.self) { _ in SystemClock() }
/// try locator.register(Greeter.self, lifetime: .transient) { r in Greeter(clock: try r.resolve()) }
/// let greeter: Greeter = try locator.resolve()
/// ```
///
/// A child made with ``child(name:)`` resolves from itself, then its ancestors; see <doc:Hierarchy>.
public final class Locator: Sendable, CustomStringConvertible {
    /// The locator this one falls back to, if any.
    public let parent: Locator?
    /// A name for diagnostics (`dump()`, `description`).
    public let name: String?

    private let lock = ReadWriteLock()
    private let frozen = Atomic<Bool>(false)
    // The registrations. A pointer rather than a stored `var` so reads skip dynamic exclusivity checks.
    // Safe to share: the table is only mutated while holding `lock` for writing, and never after `frozen` is set
    // (release); reads hold `lock` for reading, or none once an acquiring load saw `frozen`. An entry read without
    // a retain (`unretainedEntry(for:)`) is only used inside such a read, while the table still holds it.
    nonisolated(unsafe) private let table: UnsafeMutablePointer<EntryTable>
    // nonisolated(unsafe): `cloneDenied` and `nextSequence` are only written while holding `lock` for writing and
    // read while holding it.
    nonisolated(unsafe) private var cloneDenied = false
    nonisolated(unsafe) private var nextSequence = 0

    /// Makes an empty locator.
    ///
    /// - Parameters:
    ///   - parent: A locator to fall back to when a key is not registered here.
    ///   - name: A name for diagnostics.
    ///   - denyClone: Whether ``clone(name:)`` is refused.
    public init(parent: Locator? = nil, name: String? = nil, denyClone: Bool = false) {
        self.parent = parent
        self.name = name
        self.cloneDenied = denyClone
        self.table = .allocate(capacity: 1)
        self.table.initialize(to: EntryTable())
    }

    deinit {
        table.pointee.destroy()
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Makes a child locator: it resolves from itself first, then from this locator.
    public func child(name: String? = nil) -> Locator {
        Locator(parent: self, name: name)
    }

    /// Whether ``freeze(denyClone:)`` was called.
    public var isFrozen: Bool { frozen.load(ordering: .acquiring) }

    /// A one-line summary: name, number of registrations, frozen state.
    public var description: String {
        let count = snapshot().count
        let label = name.map { "\"\($0)\"" } ?? "unnamed"
        return "Locator(\(label), \(count) registration\(count == 1 ? "" : "s")\(isFrozen ? ", frozen" : ""))"
    }

    // MARK: - Table

    @inline(__always)
    func entry(for key: RegistrationKey) -> Entry? {
        if frozen.load(ordering: .acquiring) {
            return table.pointee.find(key)
        }
        lock.lockRead()
        let entry = table.pointee.find(key)
        lock.unlockRead()
        return entry
    }

    /// Starts a read of the table that may use entries without retaining them (``unretainedEntry(for:)``): takes
    /// the read lock, or none once frozen (a frozen table never changes again and lives as long as this locator).
    /// Returns whether the locator was frozen; pass it to ``endUnretainedRead(_:)``. Keep the read short: never
    /// run a factory or take another lock inside it.
    @inline(__always)
    func beginUnretainedRead() -> Bool {
        if frozen.load(ordering: .acquiring) { return true }
        lock.lockRead()
        return false
    }

    @inline(__always)
    func endUnretainedRead(_ wasFrozen: Bool) {
        if !wasFrozen { lock.unlockRead() }
    }

    /// The entry for `key`, not retained: valid only until ``endUnretainedRead(_:)``.
    @inline(__always)
    func unretainedEntry(for key: RegistrationKey) -> Unmanaged<Entry>? {
        table.pointee.unretainedEntry(for: key)
    }

    /// Finds the registration for `key` in the override layer, this locator, then its ancestors.
    @inline(__always)
    func lookup(_ key: RegistrationKey) -> (entry: Entry, owner: Locator)? {
        if let hit = OverrideScope.active?.lookup(key) {
            return hit
        }
        var locator = self
        while true {
            if let entry = locator.entry(for: key) {
                return (entry, locator)
            }
            guard let parent = locator.parent else { return nil }
            locator = parent
        }
    }

    /// Finds `key` in this locator and its ancestors only.
    func lookupInHierarchy(_ key: RegistrationKey) -> (entry: Entry, owner: Locator)? {
        var locator = self
        while true {
            if let entry = locator.entry(for: key) {
                return (entry, locator)
            }
            guard let parent = locator.parent else { return nil }
            locator = parent
        }
    }

    /// The registrations of this locator, in registration order.
    func snapshot() -> [Entry] {
        let all =
            frozen.load(ordering: .acquiring) ? table.pointee.entries : lock.withReadLock { table.pointee.entries }
        return all.sorted { $0.sequence < $1.sequence }
    }

    /// Adds or replaces a registration made by `make` (given the next sequence number).
    func insert(_ key: RegistrationKey, _ make: (Int) -> Entry) throws(LocatorError) -> Entry {
        lock.lockWrite()
        defer { lock.unlockWrite() }
        guard !frozen.load(ordering: .relaxed) else {
            throw .with(.readOnly, nil, note: "\(description) is frozen; registrations are refused")
        }
        nextSequence += 1
        let entry = make(nextSequence)
        table.pointee.insert(entry, for: key)
        return entry
    }

    /// Removes the registration of `key` (when `serviceID` is given, only one of that service type); returns
    /// whether one was removed; throws if frozen.
    func removeEntry(_ key: RegistrationKey, serviceID: ObjectIdentifier? = nil) throws(LocatorError) -> Bool {
        lock.lockWrite()
        defer { lock.unlockWrite() }
        guard !frozen.load(ordering: .relaxed) else {
            throw .with(.readOnly, nil, note: "\(description) is frozen; removal is refused")
        }
        return table.pointee.remove(key) { entry in serviceID.map { entry.serviceID == $0 } ?? true }
    }

    /// This locator's parameterised registrations of `serviceID` under `key`'s name and key kind, in registration
    /// order. Costs one read of a counter when the locator has no parameterised registration at all.
    func parameterisedSiblings(serviceID: ObjectIdentifier, of key: RegistrationKey) -> [Entry] {
        let wasFrozen = beginUnretainedRead()
        let found = table.pointee.parameterisedSiblings(serviceID: serviceID, of: key)
        endUnretainedRead(wasFrozen)
        return found.count < 2 ? found : found.sorted { $0.sequence < $1.sequence }
    }

    /// Removes every registration of this locator (not of its ancestors).
    ///
    /// - Throws: ``LocatorError/Code/readOnly`` when frozen.
    public func removeAll() throws(LocatorError) {
        lock.lockWrite()
        defer { lock.unlockWrite() }
        guard !frozen.load(ordering: .relaxed) else {
            throw .with(.readOnly, nil, note: "\(description) is frozen; removal is refused")
        }
        table.pointee.removeAll()
    }

    /// Refuses any further registration or removal; reads then take no lock at all.
    ///
    /// This is ServiceContainerKit's `setReadOnly`. Lazy singletons are still created on first resolve.
    ///
    /// - Parameter denyClone: Whether ``clone(name:)`` is refused from now on (the default).
    public func freeze(denyClone: Bool = true) {
        lock.withWriteLock {
            if denyClone {
                cloneDenied = true
            }
            frozen.store(true, ordering: .releasing)
        }
    }

    /// Refuses ``clone(name:)`` from now on.
    public func denyCloning() {
        lock.withWriteLock { cloneDenied = true }
    }

    /// A new, unfrozen locator with the same parent and a copy of every registration of this one.
    ///
    /// Singletons already created are shared with the clone; those not yet created are created separately by each
    /// locator. Changing one locator's registrations afterwards does not change the other's.
    ///
    /// - Throws: ``LocatorError/Code/cloneDenied`` when cloning is denied.
    public func clone(name: String? = nil) throws(LocatorError) -> Locator {
        let (denied, current) = lock.withReadLock { (cloneDenied, table.pointee.entries) }
        guard !denied else {
            throw .with(.cloneDenied, nil, note: "\(description) denies cloning")
        }
        let copy = Locator(parent: parent, name: name ?? self.name)
        copy.lock.withWriteLock {
            for entry in current.sorted(by: { $0.sequence < $1.sequence }) {
                copy.nextSequence += 1
                copy.table.pointee.insert(entry.copy(sequence: copy.nextSequence), for: entry.key)
            }
        }
        return copy
    }

    /// Drops the instances of every registration with lifetime `.scoped(name)` in this locator and its ancestors;
    /// the next resolve creates new ones.
    public func resetScope(_ name: String) {
        var locator: Locator? = self
        while let current = locator {
            for entry in current.snapshot() {
                entry.resetScope(name)
            }
            locator = current.parent
        }
    }
}
