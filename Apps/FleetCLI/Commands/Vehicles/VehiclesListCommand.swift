public import ArgumentParser
import FleetClient
import FleetModels
import Foundation
import RequestKit

/// `fleet vehicles list`.
public struct VehiclesListCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List vehicles, every page, optionally filtered.",
        discussion: GlobalOptions.helpPointer
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Option(help: "Only vehicles of this make (exact match).")
    public var make: String?

    @Option(name: .customLong("model-year"), help: "Only vehicles of this model year.")
    public var modelYear: Int?

    @Option(
        help: "Only vehicles that are (--due, the same as --due true) or are not (--due false) due for maintenance."
    )
    public var due: Bool?

    @Option(name: .customLong("page-size"), help: "Vehicles per page requested from the v2 API (1-500).")
    public var pageSize: Int?

    @Flag(
        help: ArgumentHelp(
            "Read the offline copy (see 'fleet sync'), else fleet's HTTP cache, instead of the daemon.",
            discussion: "Standard error says which, and how old it is; nothing in either: exit code 5."
        )
    )
    public var offline = false

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if let pageSize, !(1...500).contains(pageSize) {
            throw ValidationError("--page-size must be between 1 and 500.")
        }
    }

    func execute(_ context: CommandContext) async throws {
        let query = VehicleQuery(make: make, modelYear: modelYear, due: due, limit: pageSize)
        let output = VehicleOutput(context: context, json: global.json)
        try await withServices(global, context) { services in
            if offline {
                let vehicles = try await offlineVehicles(query, services, context)
                switch global.api {
                case .v2: try output.list(vehicles)
                case .v1: try output.list(vehicles.map(V1Conversion.v1))
                }
                return
            }
            let client = try await services.fleetClient()
            switch global.api {
            case .v2:
                try output.list(try await client.v2.all(query))
            case .v1:
                // v1 has no filters: they apply here, to the same fields.
                let vehicles = try await client.v1.list().filter { vehicle in
                    (make == nil || vehicle.make == make) && (modelYear == nil || vehicle.year == modelYear)
                        && (due == nil || vehicle.needsMaintenance == due)
                }
                try output.list(vehicles)
            }
        }
    }
}

extension VehiclesListCommand {
    /// The vehicles from the offline copy; before the first sync, the same listing from the HTTP cache (every v2
    /// page of it, whatever `--api` says). Says on standard error which it was and how old; with neither, fails
    /// with ``FleetClientError/Code/notFound`` (exit code 5).
    private func offlineVehicles(
        _ query: VehicleQuery,
        _ services: FleetServices,
        _ context: CommandContext
    ) async throws -> [V2.Vehicle] {
        let name = services.environment.name
        let copy = try await services.offlineCopy()
        if let syncedAt = try await copy.lastSynced() {
            let vehicles = try await copy.vehicles(matching: query)
            context.output.line(OfflineSource.copy(environment: name, syncedAt: syncedAt).note(), to: .standardError)
            return vehicles
        }
        if let cached = try await services.cachedReads(), let listing = try await Self.cachedListing(query, cached) {
            let source = OfflineSource.cache(environment: name, answeredAt: listing.answeredAt, copySyncedAt: nil)
            context.output.line(source.note(), to: .standardError)
            return listing.vehicles
        }
        throw FleetClientError(
            .notFound,
            message: "nothing to list offline: the offline copy of \"\(name)\" was never synced and fleet's HTTP "
                + "cache holds no listing with these filters; run 'fleet sync' while fleetd can be reached"
        )
    }
}

extension VehiclesListCommand {
    /// Every page of the listing from the cache, with when fleetd gave the oldest of them, or `nil` when it was not
    /// listed online with these filters yet.
    private static func cachedListing(
        _ query: VehicleQuery,
        _ cached: FleetClient
    ) async throws -> (vehicles: [V2.Vehicle], answeredAt: Date)? {
        do {
            return try await cached.v2.allWithAnswerDate(query)
        } catch {
            guard error.code == .notCached else { throw error }
            return nil
        }
    }
}

/// v2 vehicles shown in the v1 shape (offline reads with `--api v1`).
enum V1Conversion {
    static func v1(_ vehicle: V2.Vehicle) -> V1.Vehicle {
        V1.Vehicle(
            id: vehicle.id,
            tag: vehicle.plate,
            make: vehicle.make,
            model: vehicle.model,
            year: vehicle.modelYear,
            needsMaintenance: vehicle.maintenance.due
        )
    }
}
