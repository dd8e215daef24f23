import FleetModels
import Foundation
import ModelKit
import StoreKitLite

/// How a vehicle is stored: the canonical fields, flat. `due` is derived on read and never stored.
struct VehicleRecord: Record {
    var id: ModelID<VehicleRecord>
    var plate = ""
    var make = ""
    var model = ""
    var modelYear = 0
    var flagged = false
    var lastServiced: Date?
    var revision = 1

    init(id: ModelID<VehicleRecord>) {
        self.id = id
    }

    init(_ vehicle: Vehicle) {
        id = vehicle.id.retyped()
        update(from: vehicle)
    }

    mutating func update(from vehicle: Vehicle) {
        plate = vehicle.plate
        make = vehicle.make
        model = vehicle.model
        modelYear = vehicle.modelYear
        flagged = vehicle.maintenance.flagged
        lastServiced = vehicle.maintenance.lastServiced
        revision = vehicle.revision
    }

    var vehicle: Vehicle {
        Vehicle(
            id: id.retyped(),
            plate: plate,
            make: make,
            model: model,
            modelYear: modelYear,
            maintenance: Maintenance(flagged: flagged, lastServiced: lastServiced),
            revision: revision
        )
    }

    static let schema = RecordSchema<VehicleRecord>(
        "vehicles",
        Column("plate", \.plate),
        Column("make", \.make),
        Column("model", \.model),
        Column("modelYear", \.modelYear),
        Column("flagged", \.flagged),
        Column("lastServiced", \.lastServiced),
        // `revision` is the store's own column name; the API revision is kept beside it.
        Column("apiRevision", \.revision)
    )

    /// The store's model: the vehicles entity, an index on plates, which every list sorts and pages by, then a
    /// unique index on plates, with which the store refuses a second vehicle with a plate.
    static let storeModel = StoreModel(
        records: [VehicleRecord.self],
        migrations: [
            Migration("create vehicles", steps: [.createEntity(schema.entity)]),
            Migration(
                "index vehicles by plate",
                steps: [.createIndex(name: "vehicles_by_plate", entity: "vehicles", columns: ["plate"])]
            ),
            Migration(
                "plates are unique",
                steps: [.createUniqueIndex(name: "vehicles_unique_plate", entity: "vehicles", columns: ["plate"])]
            ),
        ]
    )
}
