// fleet-sync: a third app on the same modules as fleetd and fleet. It copies fleetd's vehicles into a store of its
// own (a SQLite file, or PostgreSQL) once, or every few seconds until SIGTERM.
//
//   fleet-sync --fleetd http://127.0.0.1:8080 --store copy.sqlite --once
//   fleet-sync --fleetd http://127.0.0.1:8080 --store postgres://sync@127.0.0.1/fleet --every 30
import Foundation
import LocatorKit
import Logging
import ModelKit
import RequestKit
import ServiceLifecycle
import ServiceModules
import StoreKitLite
import UnixSignals

/// The copy of one vehicle.
struct VehicleCopy: Record {
    var id: ModelID<VehicleCopy>
    var plate = "", make = "", model = "", modelYear = 0, due = false
    init(id: ModelID<VehicleCopy>) { self.id = id }
    static let schema = RecordSchema<VehicleCopy>(
        "vehicles",
        Column("plate", \.plate),
        Column("make", \.make),
        Column("model", \.model),
        Column("modelYear", \.modelYear),
        Column("due", \.due)
    )
}

/// One page of `GET /v2/vehicles`, as far as the copy needs it.
struct Page: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        struct Maintenance: Decodable, Sendable { var due: Bool }
        var plate: String, make: String, model: String, modelYear: Int, maintenance: Maintenance
    }
    var items: [Item]
    var nextCursor: String?
}

/// Reads every page, then replaces the copy in one unit of work: readers of the store see the old copy or the new.
struct SyncJob: Service {
    let fleet: RequestClient, store: PersistenceService, every: Duration?, logger: Logger

    func syncOnce() async throws -> Int {
        var items: [Page.Item] = [], cursor: String?
        repeat {
            let parameters: RequestParameters = cursor.map { ["limit": 100, "cursor": $0] } ?? ["limit": 100]
            let page = try await fleet.get("vehicles", parameters: parameters, as: Page.self)
            items += page.items
            cursor = page.nextCursor
        } while cursor != nil
        let unit = store.makeChild()
        _ = try await unit.delete(Query<VehicleCopy>(), options: .dontSave)
        for item in items {
            try await unit.create(VehicleCopy.self, options: .dontSave) {
                ($0.plate, $0.make, $0.model) = (item.plate, item.make, item.model)
                ($0.modelYear, $0.due) = (item.modelYear, item.maintenance.due)
            }
        }
        try await unit.saveAll(.saveAndPersist)
        return items.count
    }

    func run() async throws {
        repeat {
            do {
                let count = try await syncOnce()
                logger.info("synced \(count) vehicles")
            } catch {
                logger.error("sync failed: \(error)")
            }
            guard let every else { return }
            try? await Task.sleep(for: every)
        } while !Task.isShuttingDownGracefully && !Task.isCancelled
    }
}

/// Wires the modules, then syncs once (`--once`) or runs the job until SIGTERM; returns the exit status.
func main(_ arguments: [String]) async throws -> Int32 {
    let option = { (name: String) in arguments.firstIndex(of: name).map { arguments.dropFirst($0 + 1).first ?? "" } }
    LoggingSystem.bootstrap { StreamLogHandler.standardOutput(label: $0) }
    let logger = Logger(label: "fleet-sync")
    var settings = RequestClient.Configuration()
    settings.retryPolicy = RetryPolicy(maximumAttempts: 4)
    let locator = Locator(name: "fleet-sync")
    do {
        try locator.installChecked([
            StoreModule(url: option("--store") ?? "", model: StoreModel(VehicleCopy.self), logger: logger),
            RequestClientModule(name: "fleetd", baseURL: (option("--fleetd") ?? "") + "/v2/", configuration: settings),
        ])
    } catch {
        FileHandle.standardError.write(Data("fleet-sync: \(error)\n".utf8))
        return 2
    }
    let store = try await locator.resolve(PersistenceService.self)
    try await store.waitUntilInitialized()
    let every = arguments.contains("--once") ? nil : option("--every").flatMap(Int.init).map { Duration.seconds($0) }
    let fleet = try await locator.resolve(RequestClient.self, name: "fleetd")
    let job = SyncJob(fleet: fleet, store: store, every: every ?? .seconds(60), logger: logger)
    let lifecycles = try await locator.resolve(ModuleLifecycles.self)
    if arguments.contains("--once") {
        do {
            print("synced \(try await job.syncOnce()) vehicles")
            try await lifecycles.shutdown()
            return 0
        } catch {
            try? await lifecycles.shutdown()
            throw error
        }
    }
    let group = ServiceGroup(
        services: lifecycles.services + [job],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    try await group.run()
    return 0
}

do {
    exit(try await main(Array(CommandLine.arguments.dropFirst())))
} catch {
    FileHandle.standardError.write(Data("fleet-sync: \(error)\n".utf8))
    exit(1)
}
