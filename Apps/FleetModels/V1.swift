import Foundation
public import ModelKit

/// Version 1 of the fleet API: the older, flatter shape.
///
/// v1 names the plate `tag` and the model year `year`, and shows maintenance as one `needsMaintenance` flag. It
/// has no last-service date and no revision: converting a vehicle to v1 drops them, and a v1 write keeps the
/// stored values of both. Its JSON is frozen (a test pins the exact bytes).
public enum V1 {
    /// A vehicle as v1 sends it.
    public struct Vehicle: VersionedRepresentation, Hashable {
        public static let version = APIVersion.v1

        public var id: ModelID<FleetModels.Vehicle>
        public var tag: String
        public var make: String
        public var model: String
        public var year: Int
        /// Whether maintenance is due (the derived state, not just the flag).
        public var needsMaintenance: Bool

        /// A v1 vehicle with every field given.
        public init(
            id: ModelID<FleetModels.Vehicle>,
            tag: String,
            make: String,
            model: String,
            year: Int,
            needsMaintenance: Bool
        ) {
            self.id = id
            self.tag = tag
            self.make = make
            self.model = model
            self.year = year
            self.needsMaintenance = needsMaintenance
        }

        /// The v1 shape of `canonical`; drops the last-service date and the revision.
        public init(canonical: FleetModels.Vehicle) {
            id = canonical.id
            tag = canonical.plate
            make = canonical.make
            model = canonical.model
            year = canonical.modelYear
            needsMaintenance = canonical.maintenance.due
        }

        /// The canonical vehicle; the last-service date and revision come from `existing` (a new vehicle gets
        /// none and revision 1). `needsMaintenance` sets or clears the maintenance flag.
        public func canonical(updating existing: FleetModels.Vehicle?) throws -> FleetModels.Vehicle {
            FleetModels.Vehicle(
                id: id,
                plate: tag,
                make: make,
                model: model,
                modelYear: year,
                maintenance: Maintenance(
                    flagged: needsMaintenance,
                    lastServiced: existing?.maintenance.lastServiced
                ),
                revision: existing?.revision ?? 1
            )
        }
    }

    /// The body of `POST /v1/vehicles` and `PUT /v1/vehicles/{id}` (a full replacement of the v1 fields).
    public struct VehicleInput: Codable, Sendable, Hashable, Validatable {
        public var tag: String
        public var make: String
        public var model: String
        public var year: Int
        /// Sets or clears the maintenance flag; `false` when absent.
        public var needsMaintenance: Bool?

        /// An input with every field given.
        public init(tag: String, make: String, model: String, year: Int, needsMaintenance: Bool? = nil) {
            self.tag = tag
            self.make = make
            self.model = model
            self.year = year
            self.needsMaintenance = needsMaintenance
        }

        /// The members this body may carry.
        public static let fields = FieldSet(["tag", "make", "model", "year", "needsMaintenance"])

        public static let validations: [Validation<VehicleInput>] = [
            .field("tag", \.tag, VehicleRules.plate),
            .field("make", \.make, VehicleRules.name),
            .field("model", \.model, VehicleRules.name),
            .field("year", \.year, VehicleRules.modelYear),
        ]

        /// A new canonical vehicle from this input.
        public func makeVehicle(id: ModelID<FleetModels.Vehicle> = ModelID()) -> FleetModels.Vehicle {
            FleetModels.Vehicle(
                id: id,
                plate: tag,
                make: make,
                model: model,
                modelYear: year,
                maintenance: Maintenance(flagged: needsMaintenance ?? false)
            )
        }

        /// `existing` with the v1 fields replaced; keeps its last-service date. Does not bump the revision.
        public func applied(to existing: FleetModels.Vehicle) -> FleetModels.Vehicle {
            var vehicle = existing
            vehicle.plate = tag
            vehicle.make = make
            vehicle.model = model
            vehicle.modelYear = year
            vehicle.maintenance.flagged = needsMaintenance ?? false
            return vehicle
        }
    }
}
