import ModelKit
import StoreKitLite

/// The sample record of the fleet domain.
struct Vehicle: Record, Equatable {
    var id: ModelID<Vehicle>
    var plate = ""
    var make = ""
    var modelYear = 0
    var mileage: Double?
    var inService = true

    init(id: ModelID<Vehicle>) {
        self.id = id
    }

    static let schema = RecordSchema<Vehicle>(
        "vehicles",
        Column("plate", \.plate),
        Column("make", \.make),
        Column("modelYear", \.modelYear),
        Column("mileage", \.mileage),
        Column("inService", \.inService)
    )
}

/// A second record type, to check that types do not mix.
struct Driver: Record, Equatable {
    var id: ModelID<Driver>
    var name = ""
    var vehicle: ModelID<Vehicle>?

    init(id: ModelID<Driver>) {
        self.id = id
    }

    static let schema = RecordSchema<Driver>("drivers", Column("name", \.name), Column("vehicle", \.vehicle))
}
