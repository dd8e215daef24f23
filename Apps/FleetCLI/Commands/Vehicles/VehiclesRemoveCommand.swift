public import ArgumentParser
import FleetClient

/// `fleet vehicles remove ID`.
public struct VehiclesRemoveCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a vehicle (needs the token).",
        discussion: GlobalOptions.helpPointer
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The vehicle's ID (a UUID).")
    public var id: String

    @Option(help: "Remove only if the vehicle is still at this revision (v2 only).")
    public var revision: Int?

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if global.api == .v1, revision != nil {
            throw ValidationError("--revision needs --api v2.")
        }
    }

    func execute(_ context: CommandContext) async throws {
        let id = try FleetClient.vehicleID(self.id)
        try await withServices(global, context) { services in
            let client = try await services.fleetClient()
            switch global.api {
            case .v2: try await client.v2.delete(id, ifMatch: revision)
            case .v1: try await client.v1.delete(id)
            }
            if global.json {
                context.output.line(#"{"removed": "\#(id)"}"#)
            } else {
                context.output.line("removed \(id)")
            }
        }
    }
}
