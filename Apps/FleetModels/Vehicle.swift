public import Foundation
public import ModelKit

/// The canonical vehicle: what `fleetd` stores and what every API version is converted from and to.
///
/// A vehicle's maintenance state has two stored parts, a flag and the date it was last serviced, and one derived
/// part, ``Maintenance/due``, which the fleet service computes from its rules when it reads the vehicle (a
/// vehicle is due when flagged or when its last service is older than the service interval).
public struct Vehicle: Model {
    /// The vehicle's permanent, time-ordered ID.
    public var id: ModelID<Vehicle>
    /// The registration plate, unique in the fleet.
    public var plate: String
    /// The manufacturer, for example `Volvo`.
    public var make: String
    /// The model name, for example `FH16`.
    public var model: String
    /// The model year.
    public var modelYear: Int
    /// The maintenance state.
    public var maintenance: Maintenance
    /// Bumped by every write; v2 clients send it back (as `If-Match` or in the body) to update safely.
    public var revision: Int

    /// A vehicle with every field given.
    public init(
        id: ModelID<Vehicle> = ModelID(),
        plate: String,
        make: String,
        model: String,
        modelYear: Int,
        maintenance: Maintenance = Maintenance(),
        revision: Int = 1
    ) {
        self.id = id
        self.plate = plate
        self.make = make
        self.model = model
        self.modelYear = modelYear
        self.maintenance = maintenance
        self.revision = revision
    }
}

/// The maintenance state of a vehicle.
public struct Maintenance: Codable, Sendable, Hashable {
    /// Set by hand (`needsMaintenance: true` in v1, `maintenance.due: true` in v2); cleared the same way.
    public var flagged: Bool
    /// When the vehicle was last serviced; `nil` when never.
    public var lastServiced: Date?
    /// Whether maintenance is due, as the fleet service's rules decide. Derived on read, never stored.
    public var due: Bool

    /// A maintenance state; `due` starts as `flagged` until a service applies its rules.
    public init(flagged: Bool = false, lastServiced: Date? = nil, due: Bool? = nil) {
        self.flagged = flagged
        self.lastServiced = lastServiced
        self.due = due ?? flagged
    }
}

extension Vehicle: Validatable {
    /// The rules every stored vehicle meets, whatever API version wrote it.
    public static let validations: [Validation<Vehicle>] = [
        .field("plate", \.plate, VehicleRules.plate),
        .field("make", \.make, VehicleRules.name),
        .field("model", \.model, VehicleRules.name),
        .field("modelYear", \.modelYear, VehicleRules.modelYear),
    ]
}

/// The field rules shared by the canonical vehicle and every version's input, so that each API reports a
/// failure under its own field name (`tag` in v1, `plate` in v2) with the same message.
public enum VehicleRules {
    /// Plates: 1 to 16 characters, letters, digits, spaces and dashes, not only spaces.
    public static let plate = ValidationRule<String> { value in
        if value.allSatisfy({ $0 == " " }) { return "must not be empty" }
        if value.count > 16 { return "must be at most 16 characters" }
        let allowed = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (CharacterSet.alphanumerics.contains(scalar) || scalar == " " || scalar == "-")
        }
        return allowed ? nil : "may contain only letters, digits, spaces and dashes"
    }

    /// Make and model names: 1 to 64 characters, not only spaces, tabs and line breaks.
    public static let name = ValidationRule<String> { value in
        if value.unicodeScalars.allSatisfy({ [" ", "\t", "\r", "\n"].contains($0) }) { return "must not be empty" }
        return value.count > 64 ? "must be at most 64 characters" : nil
    }

    /// The model years a vehicle can have: from the first car (1886) to 2100.
    public static let modelYears = 1886...2100

    /// Model years in ``modelYears``.
    public static let modelYear = ValidationRule<Int>.range(modelYears)

    /// Service dates up to now: a minute ahead is tolerated for a client whose clock runs slightly fast.
    public static let lastServiced = ValidationRule<Date> { value in
        value.timeIntervalSinceNow > 60 ? "must not be in the future" : nil
    }
}
