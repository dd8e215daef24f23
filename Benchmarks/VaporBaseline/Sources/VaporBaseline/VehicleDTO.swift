import Fluent
import Foundation
import Vapor

/// A vehicle as the v2 API shows it.
struct VehicleDTO: Content {
    struct Maintenance: Content {
        var due: Bool
        var lastServiced: Date?
    }

    // The API's identifiers are lowercase; `UUID`'s own encoding would write them in capitals.
    var id: String
    var plate: String
    var make: String
    var model: String
    var modelYear: Int
    var maintenance: Maintenance
    var revision: Int

    /// `vehicle` as the API shows it: due when flagged or last serviced before `cutoff`.
    init(_ vehicle: Vehicle, cutoff: Date) throws {
        id = try vehicle.requireID().uuidString.lowercased()
        plate = vehicle.plate
        make = vehicle.make
        model = vehicle.model
        modelYear = vehicle.modelYear
        let due = vehicle.flagged || (vehicle.lastServiced.map { $0 < cutoff } ?? false)
        maintenance = Maintenance(due: due, lastServiced: vehicle.lastServiced)
        revision = vehicle.revision
    }
}

/// A page of a list, with the cursor of the next page when there is one.
struct VehiclePageDTO: Content {
    var items: [VehicleDTO]
    var nextCursor: String?
}

/// The body of a create.
struct VehicleInput: Content, Validatable {
    struct Maintenance: Content {
        var lastServiced: Date?
    }

    var plate: String
    var make: String
    var model: String
    var modelYear: Int
    var maintenance: Maintenance?

    static func validations(_ validations: inout Validations) {
        validations.add(
            "plate",
            as: String.self,
            is: .count(1...16) && .characterSet(.alphanumerics + .whitespaces + .init(charactersIn: "-"))
        )
        validations.add("make", as: String.self, is: !.empty && .count(...64))
        validations.add("model", as: String.self, is: !.empty && .count(...64))
        validations.add("modelYear", as: Int.self, is: .range(1886...2100))
    }
}
