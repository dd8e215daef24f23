import Foundation
import Logging
import ModelKit
import RequestKit
import ServiceLifecycle
import StoreKitLite

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
    let fleet: RequestClient, store: @Sendable () async throws -> PersistenceService
    let every: Duration, logger: Logger, failure: @Sendable (any Error) -> SyncFailure

    /// Every vehicle fleetd lists, page after page.
    func fetch() async throws -> [Page.Item] {
        var items: [Page.Item] = [], cursor: String?
        repeat {
            let parameters: RequestParameters = cursor.map { ["limit": 100, "cursor": $0] } ?? ["limit": 100]
            let page = try await fleet.get("vehicles", parameters: parameters, as: Page.self)
            items += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return items
    }

    /// Replaces the copy with `items`; returns how many there are.
    func replace(with items: [Page.Item]) async throws -> Int {
        let unit = try await store().makeChild()
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
                let count = try await replace(with: fetch())
                logger.info("synced \(count) vehicles")
            } catch {
                logger.error("sync failed: \(failure(error).message)")
            }
            try? await Task.sleep(for: every)
        } while !Task.isShuttingDownGracefully && !Task.isCancelled
    }
}

/// Why a sync failed, in one line that names fleetd's URL or the store, and the exit code of `--once`.
struct SyncFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    var description: String { message }

    init(_ error: any Error, fleetd: String, store: String, connectTimeout: Duration) {
        switch error {
        case let error as RequestKitError where error.code == .connectionRefused || error.code == .offline:
            (message, exitCode) = ("fleetd at \(fleetd) is not reachable: nothing accepts connections there", 3)
        case let error as RequestKitError where error.code == .timedOut && error.reason.contains("connect"):
            (message, exitCode) = ("fleetd at \(fleetd) is not reachable: no connection within \(connectTimeout)", 3)
        case let error as RequestKitError where error.status != nil:
            (message, exitCode) = ("fleetd at \(fleetd) answered \(error.status ?? 0) to GET /v2/vehicles", 1)
        case let error as RequestKitError:
            (message, exitCode) = ("fleetd at \(fleetd): \(error.reason)", 1)
        case let error as StoreError:
            (message, exitCode) = ("the store \(store): \(error.detail)", 1)
        default:
            (message, exitCode) = ("\(error)", 1)
        }
    }
}
