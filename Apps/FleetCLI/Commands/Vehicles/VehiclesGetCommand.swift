public import ArgumentParser
import FleetClient
import FleetModels
import ModelKit
import RequestKit

/// `fleet vehicles get ID`.
public struct VehiclesGetCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show one vehicle.",
        discussion: GlobalOptions.helpPointer
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The vehicle's ID (a UUID).")
    public var id: String

    @Flag(help: "Read the offline copy (see 'fleet sync'), else fleet's HTTP cache, instead of the daemon.")
    public var offline = false

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let id = try FleetClient.vehicleID(self.id)
        let output = VehicleOutput(context: context, json: global.json)
        try await withServices(global, context) { services in
            if offline {
                // The synced copy first; a vehicle it does not hold may have been read online since.
                guard let (vehicle, source) = try await offlineVehicle(id, services) else {
                    throw FleetClientError(
                        .notFound,
                        message: "vehicle \(id) is neither in the offline copy of \"\(services.environment.name)\" "
                            + "nor in fleet's HTTP cache (run 'fleet sync' to refresh the copy)"
                    )
                }
                context.output.line(source.note(), to: .standardError)
                switch global.api {
                case .v2: try output.one(vehicle)
                case .v1: try output.one(V1Conversion.v1(vehicle))
                }
                return
            }
            let client = try await services.fleetClient()
            switch global.api {
            case .v2: try output.one(try await client.v2.get(id))
            case .v1: try output.one(try await client.v1.get(id))
            }
        }
    }

    /// The vehicle from the offline copy, else from the HTTP cache (the v2 answer, whatever `--api` says), with
    /// where it came from; `nil` when neither holds it.
    private func offlineVehicle(
        _ id: ModelID<Vehicle>,
        _ services: FleetServices
    ) async throws -> (V2.Vehicle, OfflineSource)? {
        let name = services.environment.name
        let copy = try await services.offlineCopy()
        let syncedAt = try await copy.lastSynced()
        if let syncedAt, let vehicle = try await copy.vehicle(id) {
            return (vehicle, .copy(environment: name, syncedAt: syncedAt))
        }
        guard let cached = try await services.cachedReads() else { return nil }
        do {
            let answer = try await cached.v2.getWithAnswerDate(id)
            return (answer.vehicle, .cache(environment: name, answeredAt: answer.answeredAt, copySyncedAt: syncedAt))
        } catch {
            guard error.code == .notCached else { throw error }
            return nil
        }
    }
}
