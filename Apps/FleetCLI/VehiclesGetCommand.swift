public import ArgumentParser
import FleetClient
import RequestKit

/// `fleet vehicles get ID`.
public struct VehiclesGetCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show one vehicle."
    )

    @OptionGroup public var global: GlobalOptions

    @Argument(help: "The vehicle's ID (a UUID).")
    public var id: String

    @Flag(help: "Read the offline copy (see 'fleet sync') instead of the daemon.")
    public var offline = false

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let id = try FleetClient.vehicleID(self.id)
        let output = VehicleOutput(context: context, json: global.json)
        try await withServices(global, context) { services in
            if offline {
                guard let vehicle = try await services.offlineCopy().vehicle(id) else {
                    throw FleetClientError(
                        code: .notFound,
                        message: "vehicle \(id) is not in the offline copy of \"\(services.environment.name)\" "
                            + "(run 'fleet sync' to refresh it)"
                    )
                }
                switch global.api {
                case .v2: try output.one(vehicle)
                case .v1: try output.one(V1Conversion.v1(vehicle))
                }
                return
            }
            let client = try services.fleetClient()
            switch global.api {
            case .v2: try output.one(try await client.v2.get(id))
            case .v1: try output.one(try await client.v1.get(id))
            }
        }
    }
}
