public import FleetModels
public import Foundation
public import ModelKit
public import StoreKitLite
import Synchronization

/// The fleet's domain rules on top of a ``VehicleRepository``: plates are unique, vehicles are valid, the
/// maintenance policy decides which vehicles are due, and revisions guard v2 updates.
///
/// Reads and creates run concurrently: a create is one write, and the store's unique index on plates refuses a
/// duplicate (concurrent creates then share the store's group commits). Updates and deletes run one at a time, so
/// the revision and plate checks they make and the write that follows see the same store.
public final class FleetService: Sendable {
    /// How a write names the revision it was based on.
    public enum RevisionCheck: Sendable, Hashable {
        /// No check (v1 has no revisions: the last writer wins).
        case none
        /// `If-Match: "n"`; a different stored revision is ``FleetError/Code/preconditionFailed`` (412).
        case ifMatch(Int)
        /// `revision` in the body; a different stored revision is ``FleetError/Code/staleRevision`` (409).
        case body(Int)
    }

    private let repository: any VehicleRepository
    /// The maintenance rule.
    public let policy: MaintenancePolicy
    private let now: @Sendable () -> Date
    private let writes = SerialLane()
    private let finishedWrites = Atomic<UInt64>(0)
    private let followsOtherWriters: @Sendable () -> Bool
    private let feedTask = Mutex<Task<Void, Never>?>(nil)

    /// A service over `repository` with a maintenance policy and a clock (the system clock unless a test gives one).
    ///
    /// - Parameter followsOtherWriters: whether the writes of other processes sharing the store are being followed
    ///   (their change feed is connected and caught up); always `true` for a store this process alone writes.
    public init(
        repository: any VehicleRepository,
        policy: MaintenancePolicy = MaintenancePolicy(),
        now: @escaping @Sendable () -> Date = { Date() },
        followsOtherWriters: @escaping @Sendable () -> Bool = { true }
    ) {
        self.repository = repository
        self.policy = policy
        self.now = now
        self.followsOtherWriters = followsOtherWriters
    }

    /// Counts a write another process committed to the shared store, as the change feed reports it: it retires
    /// what ``writeGeneration`` guards, as this process's own writes do.
    public func noteWriteElsewhere() {
        finishedWrites.add(1, ordering: .releasing)
    }

    /// Counts, until ``close()``, every batch of `feed` that another process committed (``noteWriteElsewhere()``).
    public func follow(_ feed: AsyncStream<ChangeBatch>) {
        let task = Task { [weak self] in
            for await batch in feed where batch.isFromAnotherProcess {
                self?.noteWriteElsewhere()
            }
        }
        feedTask.withLock { $0 = task }
    }

    /// Whether answers kept since a read are known to be current: `false` while the feed of other processes'
    /// writes is disconnected or catching up (``ReadResponseCache`` then neither serves nor keeps answers).
    public var followsWritesElsewhere: Bool { followsOtherWriters() }

    /// Counts the writes that have finished, successfully or not; it is bumped after a write's commit and before
    /// the writer hears back. A read result taken while this was `n` is current as long as it is still `n`:
    /// ``ReadResponseCache`` keys its entries on it.
    public var writeGeneration: UInt64 { finishedWrites.load(ordering: .acquiring) }

    /// The service's clock: what `due` is derived at.
    public func currentDate() -> Date { now() }

    /// When the derived due state of `vehicle` (as this service returned it) may change as time passes, or `nil`
    /// when it never will: flagged vehicles stay due, vehicles never serviced stay not due, due vehicles stay due.
    public func dueStateChange(of vehicle: Vehicle) -> Date? {
        guard !vehicle.maintenance.due, let lastServiced = vehicle.maintenance.lastServiced else { return nil }
        return policy.dueDate(lastServiced: lastServiced)
    }

    /// The earliest ``dueStateChange(of:)`` among `vehicles`, or `nil` when none of them will change.
    public func dueStateChange(of vehicles: some Sequence<Vehicle>) -> Date? {
        vehicles.lazy.compactMap { self.dueStateChange(of: $0) }.min()
    }

    /// Whether the store is ready.
    public var isReady: Bool { repository.isReady }

    /// Waits until the store is ready; throws ``FleetError/Code/unavailable`` when it cannot open.
    public func waitUntilReady() async throws(FleetError) {
        try await repository.waitUntilReady()
    }

    /// One vehicle, with its due state derived.
    public func vehicle(_ id: ModelID<Vehicle>) async throws(FleetError) -> Vehicle {
        guard let vehicle = try await repository.vehicle(id: id) else {
            throw Self.notFound(id)
        }
        return policy.applied(to: vehicle, at: now())
    }

    /// The vehicle as stored, after checking the revision as `check` says: what a change that changes nothing
    /// answers. Nothing is written, so the revision stays.
    public func unchanged(_ id: ModelID<Vehicle>, check: RevisionCheck) async throws(FleetError) -> Vehicle {
        guard let vehicle = try await repository.vehicle(id: id) else {
            throw Self.notFound(id)
        }
        try Self.check(check, against: vehicle)
        return policy.applied(to: vehicle, at: now())
    }

    /// Up to `limit` vehicles in plate order after `plate`, filtered, with the plate to continue after when more
    /// follow. `limit` `nil` lists all.
    public func list(
        _ filter: VehicleFilter,
        after plate: String?,
        limit: Int?
    ) async throws(FleetError) -> VehicleListPage {
        let cutoff = policy.cutoff(at: now())
        let fetched = try await repository.vehicles(
            matching: filter,
            dueCutoff: cutoff,
            after: plate,
            limit: limit.map { $0 + 1 }
        )
        var vehicles = fetched.map { policy.applied(to: $0, cutoff: cutoff) }
        var continueAfter: String?
        if let limit, vehicles.count > limit {
            vehicles.removeLast(vehicles.count - limit)
            continueAfter = vehicles.last?.plate
        }
        return VehicleListPage(vehicles: vehicles, continueAfter: continueAfter)
    }

    /// Adds a vehicle (revision 1) and returns it as stored.
    public func create(_ vehicle: Vehicle) async throws(FleetError) -> Vehicle {
        var vehicle = vehicle
        vehicle.revision = 1
        try Self.validate(vehicle)
        let new = vehicle
        defer { finishedWrites.add(1, ordering: .releasing) }
        try await repository.insert(new)
        return policy.applied(to: new, at: now())
    }

    /// Changes a vehicle: `change` receives the stored vehicle and returns the new one; the revision is checked
    /// as `check` says and bumped, and `newPlate`, when the change sets one, must not belong to another vehicle.
    /// Returns the vehicle as stored.
    public func update(
        _ id: ModelID<Vehicle>,
        check: RevisionCheck,
        newPlate: String?,
        change: @escaping @Sendable (Vehicle) -> Vehicle
    ) async throws(FleetError) -> Vehicle {
        let updated = try await write { () throws(FleetError) -> Vehicle in
            // A stale revision is reported before anything else about the change: the client must re-read first.
            guard let current = try await repository.vehicle(id: id) else { throw Self.notFound(id) }
            try Self.check(check, against: current)
            if let newPlate, newPlate != current.plate, try await repository.plateExists(newPlate, excluding: id) {
                throw Self.duplicate(newPlate)
            }
            return try await repository.update(id: id) { (stored) throws(FleetError) -> Vehicle in
                try Self.check(check, against: stored)
                var new = change(stored)
                new.id = stored.id
                new.revision = stored.revision + 1
                try Self.validate(new)
                return new
            }
        }
        return policy.applied(to: updated, at: now())
    }

    /// Removes a vehicle, checking the revision as `check` says.
    public func delete(_ id: ModelID<Vehicle>, check: RevisionCheck) async throws(FleetError) {
        try await write { () throws(FleetError) in
            try await repository.delete(id: id) { (stored) throws(FleetError) in
                try Self.check(check, against: stored)
            }
        }
    }

    /// Runs `body` in the write lane and counts it in ``writeGeneration`` once it has finished.
    private func write<T: Sendable>(_ body: () async throws(FleetError) -> T) async throws(FleetError) -> T {
        try await writes.run { () throws(FleetError) -> T in
            defer { finishedWrites.add(1, ordering: .releasing) }
            return try await body()
        }
    }

    /// Closes the store; call once, when shutting down.
    public func close() async throws(FleetError) {
        stopFollowing()
        try await repository.close()
    }

    /// Stops following other processes' writes (see ``follow(_:)``); the daemon does it before its store closes.
    public func stopFollowing() {
        feedTask.withLock { $0?.cancel() }
    }

    // MARK: - Rules

    private static func check(_ check: RevisionCheck, against stored: Vehicle) throws(FleetError) {
        switch check {
        case .none:
            return
        case .ifMatch(let revision) where revision != stored.revision:
            throw FleetError(
                .preconditionFailed,
                "If-Match names revision \(revision) but the vehicle is at revision \(stored.revision); read it again"
            )
        case .body(let revision) where revision != stored.revision:
            throw FleetError(
                .staleRevision,
                "the update is based on revision \(revision) but the vehicle is at revision \(stored.revision); read it again"
            )
        case .ifMatch, .body:
            return
        }
    }

    private static func validate(_ vehicle: Vehicle) throws(FleetError) {
        let failures = vehicle.validationFailures
        if !failures.isEmpty {
            throw FleetError(.validation, "the vehicle breaks \(failures.count) rule(s)", failures: failures)
        }
    }

    private static func notFound(_ id: ModelID<Vehicle>) -> FleetError {
        FleetError(.notFound, "no vehicle has the ID \(id.uuidString)")
    }

    private static func duplicate(_ plate: String) -> FleetError {
        FleetError(.duplicatePlate, "another vehicle already has the plate \(plate)")
    }
}
