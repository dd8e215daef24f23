import Foundation
import ModelKit

/// The fleet domain as the tests use it.
struct Owner: Codable, Hashable, Sendable {
    var name: String
    var email: String?
}

struct Vehicle: Model {
    var id: ModelID<Vehicle>
    var plate: String
    var make: String
    var modelYear: Int
    var registeredAt: Date
    var owner: Owner
    var nickname: String?
    var mileage: Double
}

struct Fleet: Codable, Hashable, Sendable {
    var name: String
    var vehicles: [Vehicle]
}

enum Sample {
    static let vehicleID = ModelID<Vehicle>(uuid: UUID(uuidString: "0190F5C2-7A4B-7C3D-9E1F-2A3B4C5D6E7F") ?? UUID())

    static let vehicle = Vehicle(
        id: vehicleID,
        plate: "B-AB 123",
        make: "Volkswagen",
        modelYear: 2021,
        registeredAt: Date(timeIntervalSince1970: 1_709_280_930.25),
        owner: Owner(name: "Ada", email: nil),
        nickname: "Käfer/1",
        mileage: 12_345.5
    )
}
