public import FleetModels
public import Foundation
public import ModelKit
import StoreKitLite
import StoreKitLiteSQLite

/// The offline copy of the fleet: the vehicles of the last ``FleetClient/sync(into:pageSize:)`` in a SQLite file,
/// read with the same filters as `GET /v2/vehicles` while the daemon is out of reach.
///
/// A sync replaces the whole copy in one commit: a reader sees the old copy or the new one, never a mix.
public final class OfflineCopy: Sendable {
    /// The SQLite file.
    public let fileURL: URL
    private let store: PersistenceService

    private init(fileURL: URL, store: PersistenceService) {
        self.fileURL = fileURL
        self.store = store
    }

    /// Opens (creating when missing, with its folder) the copy in the SQLite file at `fileURL`.
    public static func open(at fileURL: URL) async throws(FleetClientError) -> OfflineCopy {
        let folder = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .offlineStore("cannot create the folder of the offline copy \(folder.path)", underlying: error)
        }
        do {
            let store = try await PersistenceService.open(
                model: StoreModel(OfflineVehicle.self, SyncState.self),
                backend: SQLiteBackend(location: .file(path: fileURL.path), durability: .normal)
            )
            return OfflineCopy(fileURL: fileURL, store: store)
        } catch {
            throw .offlineStore("cannot open the offline copy \(fileURL.path): \(error)", underlying: error)
        }
    }

    /// Replaces every vehicle of the copy with `vehicles` and records the time, in one commit.
    public func replaceAll(with vehicles: [V2.Vehicle], syncedAt: Date = Date()) async throws(FleetClientError) {
        let work = store.makeChild()
        do {
            try await work.delete(Query<OfflineVehicle>(), options: .dontSave)
            try await work.delete(Query<SyncState>(), options: .dontSave)
            try await work.create(OfflineVehicle.self, from: vehicles, options: .dontSave) { vehicle, record in
                record.set(vehicle)
            }
            try await work.create(SyncState.self, options: .dontSave) { state in
                state.syncedAt = syncedAt
                state.count = vehicles.count
            }
            try await work.saveAll(.saveAndPersist)
        } catch {
            work.rollback()
            throw .offlineStore("cannot write the offline copy \(fileURL.path): \(error)", underlying: error)
        }
    }

    /// The vehicles matching the query's filters (`make`, `modelYear`, `due`), in plate order; the query's
    /// `limit` and `cursor` are ignored.
    public func vehicles(matching query: VehicleQuery = VehicleQuery()) async throws(FleetClientError) -> [V2.Vehicle] {
        var request = Query<OfflineVehicle>()
        if let make = query.make { request = request.filter(\.make == make) }
        if let modelYear = query.modelYear { request = request.filter(\.modelYear == modelYear) }
        if let due = query.due { request = request.filter(\.due == due) }
        do {
            return try await store.fetch(request.sorted(by: \.plate)).map { try $0.vehicle() }
        } catch let error as FleetClientError {
            throw error
        } catch {
            throw .offlineStore("cannot read the offline copy \(fileURL.path): \(error)", underlying: error)
        }
    }

    /// The vehicle with this ID, or `nil` when the copy has none.
    public func vehicle(_ id: ModelID<Vehicle>) async throws(FleetClientError) -> V2.Vehicle? {
        do {
            return try await store.fetch(Query<OfflineVehicle>(\.vehicleID == id.uuidString)).first?.vehicle()
        } catch let error as FleetClientError {
            throw error
        } catch {
            throw .offlineStore("cannot read the offline copy \(fileURL.path): \(error)", underlying: error)
        }
    }

    /// When the copy was last synced, or `nil` when never.
    public func lastSynced() async throws(FleetClientError) -> Date? {
        do {
            return try await store.fetch(Query<SyncState>()) { $0.syncedAt }.first
        } catch {
            throw .offlineStore("cannot read the offline copy \(fileURL.path): \(error)", underlying: error)
        }
    }
}

/// A vehicle as the offline copy stores it (the v2 shape, flattened into columns).
struct OfflineVehicle: Record {
    var id: ID
    var vehicleID = ""
    var plate = ""
    var make = ""
    var model = ""
    var modelYear = 0
    var due = false
    var lastServiced: Date?
    var revision = 0

    init(id: ID) { self.id = id }

    static let schema = RecordSchema<OfflineVehicle>(
        "offline_vehicles",
        Column("vehicleID", \.vehicleID),
        Column("plate", \.plate),
        Column("make", \.make),
        Column("model", \.model),
        Column("modelYear", \.modelYear),
        Column("due", \.due),
        Column("lastServiced", \.lastServiced),
        Column("vehicleRevision", \.revision)
    )

    mutating func set(_ vehicle: V2.Vehicle) {
        vehicleID = vehicle.id.uuidString
        plate = vehicle.plate
        make = vehicle.make
        model = vehicle.model
        modelYear = vehicle.modelYear
        due = vehicle.maintenance.due
        lastServiced = vehicle.maintenance.lastServiced
        revision = vehicle.revision
    }

    /// The v2 vehicle.
    ///
    /// - Throws: ``FleetClientError`` when the stored ID is not a UUID (a damaged copy; `fleet sync` rebuilds it).
    func vehicle() throws(FleetClientError) -> V2.Vehicle {
        let id: ModelID<Vehicle>
        do {
            id = try ModelID<Vehicle>(parsing: vehicleID)
        } catch {
            throw .offlineStore(
                "the offline copy holds a vehicle ID that is not a UUID; run `fleet sync` to rebuild it",
                underlying: error
            )
        }
        return V2.Vehicle(
            id: id,
            plate: plate,
            make: make,
            model: model,
            modelYear: modelYear,
            maintenance: V2.MaintenanceState(due: due, lastServiced: lastServiced),
            revision: revision
        )
    }
}

/// When the copy was last synced and how many vehicles it pulled.
struct SyncState: Record {
    var id: ID
    var syncedAt = Date(timeIntervalSince1970: 0)
    var count = 0

    init(id: ID) { self.id = id }

    static let schema = RecordSchema<SyncState>(
        "offline_sync",
        Column("syncedAt", \.syncedAt),
        Column("count", \.count)
    )
}
