public import ArgumentParser
import FleetClient
import FleetModels
import Foundation

/// `fleet vehicles add`.
public struct VehiclesAddCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a vehicle (needs the token).",
        discussion: GlobalOptions.helpPointer
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Option(help: "The registration plate (unique; v1 calls it the tag).")
    public var plate: String

    @Option(help: "The manufacturer, for example Volvo.")
    public var make: String

    @Option(help: "The model, for example FH16.")
    public var model: String

    @Option(name: .customLong("year"), help: "The model year.")
    public var modelYear: Int

    @Option(help: "Flag the vehicle as due for maintenance: --due (the same as --due true) or --due false.")
    public var due: Bool?

    @Option(
        name: .customLong("last-serviced"),
        help: "When it was last serviced: 2024-05-01 or 2024-05-01T09:30:00Z (v2 only)."
    )
    public var lastServiced: String?

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if lastServiced != nil, global.api == .v1 {
            throw ValidationError("--last-serviced needs --api v2: v1 has no last-service date.")
        }
        if let lastServiced { _ = try DateArgument.parse(lastServiced, option: "--last-serviced") }
    }

    func execute(_ context: CommandContext) async throws {
        let output = VehicleOutput(context: context, json: global.json)
        try await withServices(global, context) { services in
            let client = try await services.fleetClient()
            switch global.api {
            case .v2:
                let serviced = try lastServiced.map { try DateArgument.parse($0, option: "--last-serviced") }
                let maintenance =
                    due != nil || serviced != nil ? V2.MaintenanceInput(due: due, lastServiced: serviced) : nil
                let input = V2.VehicleInput(
                    plate: plate,
                    make: make,
                    model: model,
                    modelYear: modelYear,
                    maintenance: maintenance
                )
                try output.one(try await client.v2.create(input))
            case .v1:
                let input = V1.VehicleInput(
                    tag: plate,
                    make: make,
                    model: model,
                    year: modelYear,
                    needsMaintenance: due
                )
                try output.one(try await client.v1.create(input))
            }
        }
    }
}
