public import ArgumentParser
import FleetClient
import FleetModels

/// `fleet vehicles update ID`.
public struct VehiclesUpdateCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change a vehicle (needs the token).",
        discussion: """
            With --api v2 (the default) only the options given change, and the update is safe against \
            concurrent changes: fleet reads the vehicle's revision and sends it as If-Match, or sends --revision \
            when given; a vehicle changed meanwhile fails with exit code 6 and nothing is written. With --api v1 \
            fleet reads the vehicle and replaces it with the options applied.

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The vehicle's ID (a UUID).")
    public var id: String

    @Option(help: "A new registration plate.")
    public var plate: String?

    @Option(help: "A new make.")
    public var make: String?

    @Option(help: "A new model.")
    public var model: String?

    @Option(name: .customLong("year"), help: "A new model year.")
    public var modelYear: Int?

    @Option(help: "Flag (--due, the same as --due true) or clear (--due false) the maintenance flag.")
    public var due: Bool?

    @Option(name: .customLong("last-serviced"), help: "Record a service: 2024-05-01 or an ISO 8601 time (v2 only).")
    public var lastServiced: String?

    @Option(help: "The revision you read; the update fails if the vehicle has changed since (v2 only).")
    public var revision: Int?

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if plate == nil, make == nil, model == nil, modelYear == nil, due == nil, lastServiced == nil {
            throw ValidationError(
                "Nothing to change: give at least one of --plate, --make, --model, --year, --due, --last-serviced."
            )
        }
        if global.api == .v1, lastServiced != nil || revision != nil {
            throw ValidationError("--last-serviced and --revision need --api v2.")
        }
        if let lastServiced { _ = try DateArgument.parse(lastServiced, option: "--last-serviced") }
    }

    func execute(_ context: CommandContext) async throws {
        let id = try FleetClient.vehicleID(self.id)
        let output = VehicleOutput(context: context, json: global.json)
        try await withServices(global, context) { services in
            let client = try await services.fleetClient()
            switch global.api {
            case .v2:
                let serviced = try lastServiced.map { try DateArgument.parse($0, option: "--last-serviced") }
                let maintenance =
                    due != nil || serviced != nil ? V2.MaintenanceInput(due: due, lastServiced: serviced) : nil
                let patch = V2.VehiclePatch(
                    plate: plate,
                    make: make,
                    model: model,
                    modelYear: modelYear,
                    maintenance: maintenance
                )
                let updated =
                    if let revision {
                        try await client.v2.update(id, patch, ifMatch: revision)
                    } else {
                        try await client.v2.update(id, patch)
                    }
                try output.one(updated)
            case .v1:
                let current = try await client.v1.get(id)
                let input = V1.VehicleInput(
                    tag: plate ?? current.tag,
                    make: make ?? current.make,
                    model: model ?? current.model,
                    year: modelYear ?? current.year,
                    needsMaintenance: due ?? current.needsMaintenance
                )
                try output.one(try await client.v1.replace(id, with: input))
            }
        }
    }
}
