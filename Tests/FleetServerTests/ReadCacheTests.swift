import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocatorKit
import Logging
import Metrics
import ModelKit
import StoreKitLite
import StoreKitLiteSQLite
import Synchronization
import Testing

/// The read cache answers from memory only while the answer is exact: every finished write retires it, and so does
/// the moment a vehicle's derived `due` state changes with time.
@Suite("Read cache")
struct ReadCacheTests {
    @Test("a write in either version retires cached reads of both versions")
    func writesRetireCachedReads() async throws {
        let fixture = try ServerFixture()
        let cache = try await fixture.daemon.locator.resolve(ReadResponseCache.self)
        try await fixture.withServer { client async throws in
            let created = try await client.createV2(plate: "CACHE-1")
            let path = "/v2/vehicles/\(created.id.uuidString)"
            let v1Path = "/v1/vehicles/\(created.id.uuidString)"
            let first = try await client.send(.get, path)
            let again = try await client.send(.get, path)
            #expect(again.body == first.body)
            #expect(again.headers[.eTag] == "\"1\"")
            #expect(again.headers[.contentType] == "application/json")
            #expect(try await client.send(.get, v1Path).status == .ok)
            #expect(try await client.send(.get, "/v1/vehicles").status == .ok)
            #expect(try await client.send(.get, "/v2/vehicles?limit=10").status == .ok)
            let warm = cache.statistics
            #expect(warm.hits >= 1)
            #expect(warm.entries == 4)

            // A v2 update: v2 and v1 reads of the vehicle and both lists show it at once.
            var headers = HTTPFields()
            headers[.ifMatch] = "\"1\""
            let patched = try await client.send(.patch, path, json: #"{"make": "Scania"}"#, headers: headers)
            #expect(patched.status == .ok)
            let afterPatch = try await client.send(.get, path)
            #expect(afterPatch.headers[.eTag] == "\"2\"")
            #expect(try afterPatch.decode(V2.Vehicle.self).make == "Scania")
            #expect(try await client.send(.get, v1Path).decode(V1.Vehicle.self).make == "Scania")
            #expect(try await client.send(.get, "/v1/vehicles").decode([V1.Vehicle].self).map(\.make) == ["Scania"])
            #expect(
                try await client.send(.get, "/v2/vehicles?limit=10").decode(V2.VehiclePage.self).items.map(\.make)
                    == ["Scania"]
            )

            // A v1 create shows in the v2 list; a delete turns a cached 200 into 404.
            let v1Body = #"{"tag": "CACHE-2", "make": "MAN", "model": "TGX", "year": 2021}"#
            #expect(try await client.send(.post, "/v1/vehicles", json: v1Body).status == .created)
            #expect(
                try await client.send(.get, "/v2/vehicles?limit=10").decode(V2.VehiclePage.self).items.map(\.plate)
                    == ["CACHE-1", "CACHE-2"]
            )
            #expect(try await client.send(.delete, path).status == .noContent)
            #expect(try await client.send(.get, path).status == .notFound)
            #expect(try await client.send(.get, v1Path).status == .notFound)
        }
    }

    @Test("after every acknowledged write, a read shows it, while other reads keep filling the cache")
    func readsRacingWrites() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client async throws in
            let created = try await client.createV2(plate: "RACE-1")
            let path = "/v2/vehicles/\(created.id.uuidString)"
            let stop = StopFlag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while !stop.value.load(ordering: .relaxed) {
                            _ = try await client.send(.get, path)
                            _ = try await client.send(.get, "/v2/vehicles?limit=5")
                        }
                    }
                }
                group.addTask {
                    defer { stop.value.store(true, ordering: .relaxed) }
                    for revision in 1...40 {
                        var headers = HTTPFields()
                        headers[.ifMatch] = "\"\(revision)\""
                        let body = #"{"model": "M\#(revision)"}"#
                        let patched = try await client.send(.patch, path, json: body, headers: headers)
                        try #require(patched.status == .ok, "\(patched.status): \(patched.text)")
                        let read = try await client.send(.get, path)
                        #expect(read.headers[.eTag] == "\"\(revision + 1)\"")
                        let page = try await client.send(.get, "/v2/vehicles?limit=5").decode(V2.VehiclePage.self)
                        #expect(page.items.first?.model == "M\(revision)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("an answer is not used once a vehicle in it becomes due; lists filtered on due are never kept")
    func dueStateChangesWithTime() async throws {
        let serviced = try #require(ISO8601DateFormatter().date(from: "2024-01-10T08:00:00Z"))
        let clock = Clock(serviced.addingTimeInterval(300 * 86_400))
        try await Self.withServer(capacityBytes: 1 << 20, now: { clock.now }) { client, cache async throws in
            let lastServiced = ModelCoding.timestamp(serviced) ?? ""
            let vehicle = try await client.createV2(
                plate: "DUE-1",
                maintenance: #"{"lastServiced": "\#(lastServiced)"}"#
            )
            _ = try await client.createV2(plate: "DUE-2")
            let path = "/v2/vehicles/\(vehicle.id.uuidString)"
            func due() async throws -> DueView {
                let v2 = try await client.send(.get, path).decode(V2.Vehicle.self)
                let v1 = try await client.send(.get, "/v1/vehicles/\(vehicle.id.uuidString)").decode(V1.Vehicle.self)
                let list = try await client.send(.get, "/v2/vehicles").decode(V2.VehiclePage.self)
                let dueList = try await client.send(.get, "/v2/vehicles?due=true").decode(V2.VehiclePage.self)
                return DueView(
                    v2: v2.maintenance.due,
                    v1: v1.needsMaintenance,
                    list: list.items.map(\.maintenance.due),
                    dueList: dueList.items.map(\.plate)
                )
            }
            let before = try await due()
            #expect(before == DueView(v2: false, v1: false, list: [false, false], dueList: []))
            #expect(try await due() == before)
            #expect(cache.statistics.hits >= 3)

            // One minute before the anniversary of the service: still cached, still not due.
            clock.now = serviced.addingTimeInterval(366 * 86_400 - 60)
            #expect(try await due() == before)
            // Past it: every kept answer that showed the vehicle is retired, though nothing was written.
            clock.now = serviced.addingTimeInterval(367 * 86_400)
            let after = try await due()
            #expect(after == DueView(v2: true, v1: true, list: [true, false], dueList: ["DUE-1"]))
        }
    }

    @Test("memory stays within the byte budget; an answer larger than the budget is not kept")
    func budget() async throws {
        try await Self.withServer(capacityBytes: 2_000) { client, cache async throws in
            var ids: [String] = []
            for index in 0..<30 {
                ids.append(try await client.createV2(plate: "BUDGET-\(index)").id.uuidString)
            }
            for id in ids + ids {
                #expect(try await client.send(.get, "/v2/vehicles/\(id)").status == .ok)
                #expect(cache.statistics.bytes <= 2_000)
            }
            #expect(cache.statistics.entries > 0)
            #expect(cache.statistics.entries < 30)
            let page = try await client.send(.get, "/v2/vehicles?limit=30")
            #expect(page.body.readableBytes > 2_000)
            #expect(try await client.send(.get, "/v2/vehicles?limit=30").body == page.body)
            #expect(cache.statistics.bytes <= 2_000)
        }
    }

    /// A fleet service on a fresh SQLite file with its own clock, and a cache of `capacityBytes`, served on loopback.
    private static func withServer(
        capacityBytes: Int,
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: @Sendable (any TestClientProtocol, ReadResponseCache) async throws -> Void
    ) async throws {
        let folder = ServerFixture.makeFolderURL()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = PersistenceService(
            model: StoreVehicleRepository.storeModel,
            backend: SQLiteBackend(location: .file(path: folder.appendingPathComponent("fleet.sqlite").path))
        )
        let service = FleetService(
            repository: StoreVehicleRepository(store: store),
            policy: MaintenancePolicy(intervalMonths: 12),
            now: now
        )
        try await service.waitUntilReady()
        let cache = ReadResponseCache(service: service, capacityBytes: capacityBytes)
        let built = FleetRoutes.makeRouter(
            service: service,
            settings: FleetHTTPSettings(token: ServerFixture.token),
            metrics: FleetMetrics(factory: NOOPMetricsHandler.instance),
            cache: cache,
            metricsText: { "" }
        )
        try await Application(router: built.router).test(.live) { client async throws in
            try await body(client, cache)
        }
        try await service.close()
    }

    @Test("--read-cache-bytes 0 reads the store for every request")
    func turnedOff() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = StoreTests.configuration(folder)
        configuration.readCacheBytes = 0
        let daemon = try FleetDaemon(
            configuration: configuration,
            logger: StoreTests.logger(),
            token: ServerFixture.token
        )
        let cache = try await daemon.locator.resolve(ReadResponseCache.self)
        let fleet = try await daemon.locator.resolve(FleetService.self)
        try await fleet.waitUntilReady()
        try await daemon.makeApplication().test(.live) { client async throws in
            let created = try await client.createV2(plate: "OFF-1")
            for _ in 0..<3 {
                #expect(try await client.send(.get, "/v2/vehicles/\(created.id.uuidString)").status == .ok)
            }
        }
        #expect(cache.statistics.entries == 0)
        #expect(cache.statistics.hits == 0)
        try await fleet.close()
    }
}

/// The cache is exact only while one daemon writes the database, so a second daemon on it refuses to start.
@Suite("Database lock")
struct DatabaseLockTests {
    @Test("a second daemon on the same database fails before listening; the lock goes with the first")
    func secondDaemonRefused() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = StoreTests.configuration(folder)
        let first = try FleetDaemon(
            configuration: configuration,
            logger: StoreTests.logger(),
            token: ServerFixture.token
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let running = Task { try await first.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        #expect(try #require(await iterator.next()) > 0)

        let second = try FleetDaemon(
            configuration: configuration,
            logger: StoreTests.logger(),
            token: ServerFixture.token
        )
        do {
            try await second.run()
            Issue.record("a second daemon ran on a locked database")
        } catch let error as FleetError {
            #expect(error.code == .unavailable)
            #expect("\(error)".contains("another fleetd is running on this database"))
        }
        try await second.locator.resolve(FleetService.self).close()

        running.cancel()
        _ = await running.result
        continuation.finish()
        // The first one is gone: the lock is free again.
        let third = try FleetDaemon(
            configuration: configuration,
            logger: StoreTests.logger(),
            token: ServerFixture.token
        )
        let (thirdPorts, thirdContinuation) = AsyncStream.makeStream(of: Int.self)
        let again = Task { try await third.run { port in thirdContinuation.yield(port) } }
        var thirdIterator = thirdPorts.makeAsyncIterator()
        #expect(try #require(await thirdIterator.next()) > 0)
        again.cancel()
        if case .failure(let error) = await again.result {
            Issue.record("the third daemon ended with \(error)")
        }
        thirdContinuation.finish()
    }
}

/// What `dueStateChanges` reads: the vehicle's due state through v2, v1 and the list, and the `due=true` list.
private struct DueView: Equatable {
    var v2: Bool
    var v1: Bool
    var list: [Bool]
    var dueList: [String]
}

/// Tells the readers of `readsRacingWrites` to stop.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// A clock tests move by hand.
private final class Clock: Sendable {
    private let value: Mutex<Date>

    init(_ date: Date) {
        value = Mutex(date)
    }

    var now: Date {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
