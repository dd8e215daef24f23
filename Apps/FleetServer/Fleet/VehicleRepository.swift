public import FleetModels
public import Foundation
public import ModelKit
public import StoreKitLite

/// Where the fleet service keeps vehicles. `StoreVehicleRepository` keeps them in StoreKitLite; tests and other
/// stores can provide their own.
public protocol VehicleRepository: Sendable {
    /// Whether the store is ready for requests.
    var isReady: Bool { get }
    /// Waits until the store is ready.
    ///
    /// - Throws: ``FleetError/Code/unavailable`` with the reason when it cannot open.
    func waitUntilReady() async throws(FleetError)
    /// The stored vehicle with this ID (its `due` state not yet derived).
    func vehicle(id: ModelID<Vehicle>) async throws(FleetError) -> Vehicle?
    /// Whether a vehicle other than `excluding` has this plate.
    func plateExists(_ plate: String, excluding: ModelID<Vehicle>?) async throws(FleetError) -> Bool
    /// Up to `limit` vehicles in plate order after `plate`, filtered; `dueCutoff` is the policy's cutoff date.
    func vehicles(
        matching filter: VehicleFilter,
        dueCutoff: Date,
        after plate: String?,
        limit: Int?
    ) async throws(FleetError) -> [Vehicle]
    /// Stores a new vehicle with its ID, in one write: the store itself refuses a plate another vehicle has.
    ///
    /// - Throws: ``FleetError/Code/duplicatePlate`` when another vehicle has the plate (nothing is stored).
    func insert(_ vehicle: Vehicle) async throws(FleetError)
    /// Changes a stored vehicle in one unit of work: `change` receives the stored value and returns the new one,
    /// or throws to write nothing. A concurrent write to the same vehicle fails with
    /// ``FleetError/Code/concurrentUpdate``.
    func update(
        id: ModelID<Vehicle>,
        _ change: (Vehicle) throws(FleetError) -> Vehicle
    ) async throws(FleetError) -> Vehicle
    /// Deletes a stored vehicle after `check` accepts it (throw to keep it).
    func delete(id: ModelID<Vehicle>, _ check: (Vehicle) throws(FleetError) -> Void) async throws(FleetError)
    /// Closes the store.
    func close() async throws(FleetError)
}

/// Vehicles in a StoreKitLite store: each write is a child unit of work saved with `saveAndPersist`, so it reaches
/// the store atomically or not at all, and the store's per-record revisions catch concurrent writers.
public final class StoreVehicleRepository: VehicleRepository {
    private let store: PersistenceService

    /// A repository over `store`, which must have been opened with ``storeModel``.
    public init(store: PersistenceService) {
        self.store = store
    }

    /// The store model the repository's store must be opened with.
    public static var storeModel: StoreModel { VehicleRecord.storeModel }

    public var isReady: Bool { store.isInitialized }

    public func waitUntilReady() async throws(FleetError) {
        do {
            try await store.waitUntilInitialized()
        } catch {
            throw Self.map(error)
        }
    }

    public func vehicle(id: ModelID<Vehicle>) async throws(FleetError) -> Vehicle? {
        do {
            return try await store.fetch(ids: [id.retyped(as: VehicleRecord.self)]).first?.vehicle
        } catch {
            throw Self.map(error)
        }
    }

    public func plateExists(_ plate: String, excluding: ModelID<Vehicle>?) async throws(FleetError) -> Bool {
        do {
            let matches = try await store.fetch(Query<VehicleRecord>(\.plate == plate).limit(2)) { $0.id }
            return matches.contains { $0 != excluding?.retyped(as: VehicleRecord.self) }
        } catch {
            throw Self.map(error)
        }
    }

    public func vehicles(
        matching filter: VehicleFilter,
        dueCutoff: Date,
        after plate: String?,
        limit: Int?
    ) async throws(FleetError) -> [Vehicle] {
        var predicate = RecordPredicate<VehicleRecord>.all
        if let make = filter.make { predicate = predicate && \.make == make }
        if let modelYear = filter.modelYear { predicate = predicate && \.modelYear == modelYear }
        if let due = filter.due {
            // Due: flagged, or serviced before the cutoff. Never serviced and not flagged is not due. "Not due" is
            // spelt out rather than negated: `lastServiced < cutoff` is unknown for a NULL date, and so is its
            // negation, which would leave never-serviced vehicles out of both lists.
            let isDue: RecordPredicate<VehicleRecord> = \.flagged == true || \.lastServiced < Optional(dueCutoff)
            let isNotDue: RecordPredicate<VehicleRecord> =
                \.flagged == false && (\.lastServiced == nil || \.lastServiced >= Optional(dueCutoff))
            predicate = predicate && (due ? isDue : isNotDue)
        }
        if let plate { predicate = predicate && \.plate > plate }
        var query = Query<VehicleRecord>(predicate).sorted(by: \.plate)
        if let limit { query = query.limit(limit) }
        do {
            return try await store.fetch(query) { $0.vehicle }
        } catch {
            throw Self.map(error)
        }
    }

    public func insert(_ vehicle: Vehicle) async throws(FleetError) {
        do {
            try await store.makeChild().insert([VehicleRecord(vehicle)], options: .saveAndPersist)
        } catch  where error.code == .duplicateValue {
            throw FleetError(
                .duplicatePlate,
                "another vehicle already has the plate \(vehicle.plate)",
                underlying: error
            )
        } catch {
            throw Self.map(error)
        }
    }

    public func update(
        id: ModelID<Vehicle>,
        _ change: (Vehicle) throws(FleetError) -> Vehicle
    ) async throws(FleetError) -> Vehicle {
        let unit = store.makeChild()
        var refusal: FleetError?
        var updated: Vehicle?
        do {
            try await unit.update(ids: [id.retyped(as: VehicleRecord.self)]) { records in
                guard let stored = records.first else { return .dontSave }
                do throws(FleetError) {
                    let new = try change(stored.vehicle)
                    records[0].update(from: new)
                    updated = new
                    return .dontSave
                } catch {
                    refusal = error
                    return .dontSave
                }
            }
            if let refusal {
                unit.rollback()
                throw refusal
            }
            guard let updated else {
                throw FleetError(.notFound, "no vehicle has the ID \(id.uuidString)")
            }
            try await unit.saveAll(.saveAndPersist)
            return updated
        } catch let error as FleetError {
            throw error
        } catch {
            unit.rollback()
            throw Self.map(error)
        }
    }

    public func delete(id: ModelID<Vehicle>, _ check: (Vehicle) throws(FleetError) -> Void) async throws(FleetError) {
        let unit = store.makeChild()
        let recordID = id.retyped(as: VehicleRecord.self)
        do {
            guard let stored = try await unit.fetch(ids: [recordID]).first else {
                throw FleetError(.notFound, "no vehicle has the ID \(id.uuidString)")
            }
            try check(stored.vehicle)
            try await unit.delete(ids: [recordID], options: .saveAndPersist)
        } catch let error as FleetError {
            throw error
        } catch {
            unit.rollback()
            throw Self.map(error)
        }
    }

    public func close() async throws(FleetError) {
        do {
            try await store.close()
        } catch {
            throw Self.map(error)
        }
    }

    private static func map(_ error: any Error) -> FleetError {
        guard let error = error as? StoreError else {
            return FleetError(.storeFailure, "the store failed: \(error)", underlying: error)
        }
        switch error.code {
        case .notInitialized, .initializationFailed, .notADatabase, .newerSchema, .cannotOpen, .invalidModel:
            return FleetError(.unavailable, "the store is not ready: \(error)", underlying: error)
        case .connectionLost, .timedOut:
            // The database went away or answered too late: worth trying again shortly, not a fault of the request.
            return FleetError(.unavailable, "the store did not answer: \(error)", underlying: error)
        case .duplicateValue:
            return FleetError(.duplicatePlate, "another vehicle already has this plate", underlying: error)
        case .conflict:
            return FleetError(
                .concurrentUpdate,
                "another request changed this vehicle at the same time; read it again",
                underlying: error
            )
        default:
            return FleetError(.storeFailure, "the store failed: \(error)", underlying: error)
        }
    }
}
