public import Foundation
public import ModelKit

/// Version 2 of the fleet API: every field of the canonical vehicle, a nested maintenance object, the revision for
/// optimistic concurrency, and cursor-paginated lists.
public enum V2 {
    /// A vehicle as v2 sends it.
    public struct Vehicle: VersionedRepresentation, Hashable {
        public static let version = APIVersion.v2

        public var id: ModelID<FleetModels.Vehicle>
        public var plate: String
        public var make: String
        public var model: String
        public var modelYear: Int
        public var maintenance: MaintenanceState
        public var revision: Int

        /// A v2 vehicle with every field given.
        public init(
            id: ModelID<FleetModels.Vehicle>,
            plate: String,
            make: String,
            model: String,
            modelYear: Int,
            maintenance: MaintenanceState,
            revision: Int
        ) {
            self.id = id
            self.plate = plate
            self.make = make
            self.model = model
            self.modelYear = modelYear
            self.maintenance = maintenance
            self.revision = revision
        }

        /// The v2 shape of `canonical`: lossless apart from the flag, which shows as `due`.
        public init(canonical: FleetModels.Vehicle) {
            id = canonical.id
            plate = canonical.plate
            make = canonical.make
            model = canonical.model
            modelYear = canonical.modelYear
            maintenance = MaintenanceState(
                due: canonical.maintenance.due,
                lastServiced: canonical.maintenance.lastServiced
            )
            revision = canonical.revision
        }

        /// The canonical vehicle; `maintenance.due` sets the flag when `existing` is `nil`, and keeps
        /// `existing`'s flag when it already agrees with the derived state.
        public func canonical(updating existing: FleetModels.Vehicle?) throws -> FleetModels.Vehicle {
            let flagged: Bool
            if let existing, existing.maintenance.due == maintenance.due {
                flagged = existing.maintenance.flagged
            } else {
                flagged = maintenance.due
            }
            return FleetModels.Vehicle(
                id: id,
                plate: plate,
                make: make,
                model: model,
                modelYear: modelYear,
                maintenance: Maintenance(
                    flagged: flagged,
                    lastServiced: maintenance.lastServiced,
                    due: maintenance.due
                ),
                revision: revision
            )
        }
    }

    /// The maintenance state as v2 shows it.
    public struct MaintenanceState: Codable, Sendable, Hashable {
        /// Whether maintenance is due by the fleet's rules (flagged, or serviced too long ago).
        public var due: Bool
        /// When the vehicle was last serviced; absent when never.
        public var lastServiced: Date?

        /// A maintenance state.
        public init(due: Bool, lastServiced: Date? = nil) {
            self.due = due
            self.lastServiced = lastServiced
        }
    }

    /// Maintenance as a v2 write gives it: each member optional.
    public struct MaintenanceInput: Codable, Sendable, Hashable {
        /// `true` flags the vehicle for maintenance, `false` clears the flag.
        public var due: Bool?
        /// Records a service.
        public var lastServiced: Date?

        /// A maintenance change.
        public init(due: Bool? = nil, lastServiced: Date? = nil) {
            self.due = due
            self.lastServiced = lastServiced
        }

        /// The members this object may carry.
        public static let fields = FieldSet(["due", "lastServiced"])
    }

    /// The body of `POST /v2/vehicles`.
    public struct VehicleInput: Codable, Sendable, Hashable, Validatable {
        public var plate: String
        public var make: String
        public var model: String
        public var modelYear: Int
        public var maintenance: MaintenanceInput?

        /// An input with every field given.
        public init(plate: String, make: String, model: String, modelYear: Int, maintenance: MaintenanceInput? = nil) {
            self.plate = plate
            self.make = make
            self.model = model
            self.modelYear = modelYear
            self.maintenance = maintenance
        }

        /// The members this body may carry.
        public static let fields = FieldSet(
            ["plate", "make", "model", "modelYear"],
            nested: ["maintenance": MaintenanceInput.fields]
        )

        public static let validations: [Validation<VehicleInput>] = [
            .field("plate", \.plate, VehicleRules.plate),
            .field("make", \.make, VehicleRules.name),
            .field("model", \.model, VehicleRules.name),
            .field("modelYear", \.modelYear, VehicleRules.modelYear),
            .field("maintenance.lastServiced", \.maintenance?.lastServiced, .ifPresent(VehicleRules.lastServiced)),
        ]

        /// A new canonical vehicle from this input.
        public func makeVehicle(id: ModelID<FleetModels.Vehicle> = ModelID()) -> FleetModels.Vehicle {
            FleetModels.Vehicle(
                id: id,
                plate: plate,
                make: make,
                model: model,
                modelYear: modelYear,
                maintenance: Maintenance(
                    flagged: maintenance?.due ?? false,
                    lastServiced: maintenance?.lastServiced
                )
            )
        }
    }

    /// The body of `PATCH /v2/vehicles/{id}`: only the members present change.
    ///
    /// `revision`, when present, must equal the stored revision (else 409 Conflict); an `If-Match` header
    /// does the same job (else 412). One of the two is required.
    public struct VehiclePatch: Codable, Sendable, Hashable, Validatable {
        public var plate: String?
        public var make: String?
        public var model: String?
        public var modelYear: Int?
        public var maintenance: MaintenanceInput?
        public var revision: Int?

        /// A patch; `nil` members stay as they are.
        public init(
            plate: String? = nil,
            make: String? = nil,
            model: String? = nil,
            modelYear: Int? = nil,
            maintenance: MaintenanceInput? = nil,
            revision: Int? = nil
        ) {
            self.plate = plate
            self.make = make
            self.model = model
            self.modelYear = modelYear
            self.maintenance = maintenance
            self.revision = revision
        }

        /// The members this body may carry.
        public static let fields = FieldSet(
            ["plate", "make", "model", "modelYear", "revision"],
            nested: ["maintenance": MaintenanceInput.fields]
        )

        public static let validations: [Validation<VehiclePatch>] = [
            .field("plate", \.plate, .ifPresent(VehicleRules.plate)),
            .field("make", \.make, .ifPresent(VehicleRules.name)),
            .field("model", \.model, .ifPresent(VehicleRules.name)),
            .field("modelYear", \.modelYear, .ifPresent(VehicleRules.modelYear)),
            .field("maintenance.lastServiced", \.maintenance?.lastServiced, .ifPresent(VehicleRules.lastServiced)),
            .field("revision", \.revision, .ifPresent(.atLeast(1))),
        ]

        /// Whether the patch changes nothing.
        public var isEmpty: Bool {
            plate == nil && make == nil && model == nil && modelYear == nil
                && maintenance?.due == nil && maintenance?.lastServiced == nil
        }

        /// `existing` with the members of this patch applied. Does not bump the revision.
        public func applied(to existing: FleetModels.Vehicle) -> FleetModels.Vehicle {
            var vehicle = existing
            if let plate { vehicle.plate = plate }
            if let make { vehicle.make = make }
            if let model { vehicle.model = model }
            if let modelYear { vehicle.modelYear = modelYear }
            if let due = maintenance?.due { vehicle.maintenance.flagged = due }
            if let lastServiced = maintenance?.lastServiced { vehicle.maintenance.lastServiced = lastServiced }
            return vehicle
        }
    }

    /// One page of `GET /v2/vehicles`.
    public struct VehiclePage: Codable, Sendable, Hashable {
        /// The vehicles of this page, in plate order (plates are unique).
        public var items: [Vehicle]
        /// Pass as `cursor` to get the next page; absent on the last page.
        public var nextCursor: String?

        /// A page.
        public init(items: [Vehicle], nextCursor: String?) {
            self.items = items
            self.nextCursor = nextCursor
        }
    }
}

extension Vehicle {
    /// Every API version of the vehicle, for code that converts by version number.
    public static let versions = VersionedModel<Vehicle>(V1.Vehicle.self, V2.Vehicle.self)
}
