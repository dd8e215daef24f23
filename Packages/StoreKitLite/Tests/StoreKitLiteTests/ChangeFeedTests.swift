import Foundation
import GRDB
import ModelKit
import ModelKitTesting
import PostgresNIO
import StoreKitLite
import StoreKitLiteSQLite
import Testing

@testable import StoreKitLitePostgres

/// Collects what a change stream delivers, so a test can wait (with a deadline) for what it expects.
private final class ChangeCollector<R: StoreKitLite.Record>: Sendable {
    private let received = LockedValue<[StoreChange<R>]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<StoreChange<R>>) {
        let received = received
        task = Task { for await change in stream { received.withLock { $0.append(change) } } }
    }

    deinit {
        task.cancel()
    }

    var all: [StoreChange<R>] { received.withLock { $0 } }

    /// The changes so far, once `done` holds for them or `timeout` has passed.
    func wait(
        timeout: Duration = .seconds(15),
        until done: ([StoreChange<R>]) -> Bool
    ) async -> [StoreChange<R>] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = all
            if done(current) { return current }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return all
    }
}

private func inserted<R>(_ changes: [StoreChange<R>]) -> Set<ModelID<R>> { Set(changes.flatMap(\.inserted)) }
private func updated<R>(_ changes: [StoreChange<R>]) -> Set<ModelID<R>> { Set(changes.flatMap(\.updated)) }
private func deleted<R>(_ changes: [StoreChange<R>]) -> Set<ModelID<R>> { Set(changes.flatMap(\.deleted)) }

struct ChangeLogEntryTests {
    @Test func entriesRoundTripAndRefuseDamagedBytes() throws {
        let entry = ChangeLogEntry(entities: [
            .init(entity: "vehicles", inserted: [UUID(), UUID()], updated: [UUID()], deleted: []),
            .init(entity: "drïvers", inserted: [], updated: [], deleted: [UUID()]),
        ])
        let bytes = entry.encoded()
        #expect(try ChangeLogEntry(decoding: bytes) == entry)
        for cut in [0, 1, 5, bytes.count - 1] {
            #expect(throws: StoreError.self) { try ChangeLogEntry(decoding: bytes.prefix(cut)) }
        }
        var unknown = bytes
        unknown[0] = 99
        let error = try #require(throws: StoreError.self) { try ChangeLogEntry(decoding: unknown) }
        #expect(error.code == .backend)
        #expect(throws: StoreError.self) { try ChangeLogEntry(decoding: bytes + [0]) }
    }
}

struct ChangeFeedTests {
    static let fastFeed = ChangeFeed.allProcesses(pollInterval: .milliseconds(20))

    /// Two backends on one store, as two processes would have (their own connections, their own identity in the
    /// log); `second` is the one observing.
    static func exerciseTwoWriters(first: any StoreBackend, second: any StoreBackend) async throws {
        let model = StoreModel(Vehicle.self, Driver.self)
        let writer = try await PersistenceService.open(model: model, backend: first)
        let reader = try await PersistenceService.open(model: model, backend: second)
        let remote = ChangeCollector(reader.changes(of: Vehicle.self))
        let recent = ChangeCollector(reader.changes(matching: Query<Vehicle>(\.modelYear >= 2020)))
        let local = ChangeCollector(writer.changes(of: Vehicle.self))

        let ids = try await writer.create(Vehicle.self, from: [2019, 2021, 2022], options: .saveAndPersist) {
            $1.modelYear = $0
        }
        try await writer.update(ids: [ids[0]]) { vehicles in
            vehicles[0].modelYear = 2024
            return .saveAndPersist
        }
        try await writer.delete(ids: [ids[2]], options: .saveAndPersist)
        try await writer.create(Driver.self, options: .saveAndPersist) { $0.name = "not a vehicle" }

        let seen = await remote.wait { inserted($0) == Set(ids) && updated($0) == [ids[0]] && deleted($0) == [ids[2]] }
        #expect(inserted(seen) == Set(ids))
        #expect(updated(seen) == [ids[0]])
        #expect(deleted(seen) == [ids[2]])
        // One element per commit that touched vehicles, in commit order.
        #expect(seen.count == 3)
        #expect(seen.first.map { Set($0.inserted) } == Set(ids))

        // Matched against the records as they are now: the 2019 vehicle was inserted as a non-match but is 2024
        // by the time it is read; a remote delete carries no values, so it is reported.
        let matching = await recent.wait { deleted($0) == [ids[2]] }
        #expect(inserted(matching).isSuperset(of: [ids[1]]))
        #expect(deleted(matching) == [ids[2]])

        // The writer's own observer sees each of its commits once, not again from the log: a vehicle the reader
        // creates reaches it through the log after the log entries of the writer's own (earlier) commits, so once
        // it has arrived any repeat of those would have arrived before it.
        let marker = try await reader.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 1999 }
        let own = await local.wait { inserted($0).contains(marker.id) }
        #expect(own.count == 4)
        #expect(own.prefix(3).allSatisfy { !$0.inserted.contains(marker.id) })

        // The reader's own writes reach the writer the same way.
        let back = ChangeCollector(writer.changes(of: Driver.self))
        let driver = try await reader.create(Driver.self, options: .saveAndPersist) { $0.name = "from the reader" }
        let driverChanges = await back.wait { inserted($0) == [driver.id] }
        #expect(inserted(driverChanges) == [driver.id])
    }

    @Test func sqliteBackendsOnOneFileSeeEachOthersCommits() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("shared.sqlite")
        let first = SQLiteBackend(path: path, changeFeed: Self.fastFeed)
        let second = SQLiteBackend(path: path, changeFeed: Self.fastFeed)
        try await Self.exerciseTwoWriters(first: first, second: second)
        try await first.close()
        try await second.close()
    }

    @Test func aWriterThatDoesNotFollowStillLogsOnceTheStoreHasALog() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("shared.sqlite")
        let model = StoreModel(Vehicle.self, Driver.self)
        let follower = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, changeFeed: Self.fastFeed)
        )
        let plain = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        let changes = ChangeCollector(follower.changes(of: Vehicle.self))
        let vehicle = try await plain.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 2001 }
        let seen = await changes.wait { inserted($0) == [vehicle.id] }
        #expect(inserted(seen) == [vehicle.id])
    }

    @Test func aStoreWithoutAFollowingBackendHasNoLog() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("plain.sqlite")
        let backend = SQLiteBackend(path: path)
        let service = try await PersistenceService.open(model: StoreModel(Vehicle.self, Driver.self), backend: backend)
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 1999 }
        try await backend.close()
        let tables = try sqliteStrings(path, "SELECT name FROM sqlite_master WHERE name = 'storekitlite_changes'")
        #expect(tables.isEmpty)
    }

    @Test func writersPruneTheLogToItsRetention() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("pruned.sqlite")
        let backend = SQLiteBackend(path: path, changeFeed: .allProcesses(retention: .zero))
        let service = try await PersistenceService.open(model: StoreModel(Vehicle.self, Driver.self), backend: backend)
        for year in 0..<300 {
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = year }
        }
        try await backend.close()
        // Pruned in the 256th commit, which keeps its own entry (not older than the retention of zero); the 44
        // commits after it stay until the next pruning.
        let remaining = try sqliteStrings(path, "SELECT count(*) FROM storekitlite_changes")
        #expect(remaining == ["45"])
        let records = try sqliteStrings(path, "SELECT count(*) FROM vehicles")
        #expect(records == ["300"])
    }

    /// Runs `sql` on the file and returns the first column of each row, as text.
    private func sqliteStrings(_ path: String, _ sql: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: sql) }
    }
}

extension ChangeFeedTests {
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        /// Two backends on one schema, each with its own client, as two nodes have.
        @Test func backendsOnOneSchemaSeeEachOthersCommits() async throws {
            let schema = PostgresTestDatabase.freshSchema()
            var configuration = try PostgresTestDatabase.configuration(schema: schema)
            configuration.changeFeed = ChangeFeedTests.fastFeed
            configuration.maximumConnections = 4
            let first = PostgresBackend(configuration: configuration)
            let second = PostgresBackend(configuration: configuration)
            try await ChangeFeedTests.exerciseTwoWriters(first: first, second: second)
            #expect(second.changeFeedStatus.isConnected)
            #expect(second.changeFeedStatus.deliveredBatches >= 4)
            try await first.close()
            try await second.close()
            #expect(!second.changeFeedStatus.isFollowing)
        }

        /// A batch large enough to go in one `COPY` is logged and notified like any other: another node's
        /// follower delivers every one of its records, with the values stored.
        @Test func aBatchWrittenWithCopyReachesTheOtherNodes() async throws {
            let schema = PostgresTestDatabase.freshSchema()
            var configuration = try PostgresTestDatabase.configuration(schema: schema)
            configuration.changeFeed = ChangeFeedTests.fastFeed
            configuration.maximumConnections = 4
            let model = StoreModel(Vehicle.self, Driver.self)
            let writerBackend = PostgresBackend(configuration: configuration)
            let readerBackend = PostgresBackend(configuration: configuration)
            let writer = try await PersistenceService.open(model: model, backend: writerBackend)
            let reader = try await PersistenceService.open(model: model, backend: readerBackend)
            let changes = ChangeCollector(reader.changes(of: Vehicle.self))
            // Far more records than the fewest that go through COPY, with text COPY must escape.
            let years = Array(0..<3_000)
            let ids = try await writer.create(Vehicle.self, from: years, options: .saveAndPersist) { year, vehicle in
                vehicle.plate = "P\t\(year)\n"
                vehicle.modelYear = year
            }
            let seen = await changes.wait { inserted($0) == Set(ids) }
            #expect(inserted(seen) == Set(ids))
            #expect(seen.count == 1, "one commit, one delivered change")
            let fetched = try await reader.fetch(Query<Vehicle>(\.modelYear == 2_999))
            #expect(fetched.map(\.plate) == ["P\t2999\n"])
            try await writerBackend.close()
            try await readerBackend.close()
        }

        /// Commits notify nobody inside their transactions; the backend's own notifications, sent after commits,
        /// wake another node's follower for every commit, and a burst of commits costs fewer notifications than
        /// commits.
        @Test func aBurstOfCommitsWakesTheOtherNodeWithFewerNotificationsThanCommits() async throws {
            let schema = PostgresTestDatabase.freshSchema()
            var configuration = try PostgresTestDatabase.configuration(schema: schema)
            // A poll far longer than the test: what the follower delivers, it was woken for.
            configuration.changeFeed = .allProcesses(pollInterval: .seconds(120))
            configuration.maximumConnections = 4
            let model = StoreModel(Vehicle.self, Driver.self)
            let writerBackend = PostgresBackend(configuration: configuration)
            let readerBackend = PostgresBackend(configuration: configuration)
            let writer = try await PersistenceService.open(model: model, backend: writerBackend)
            let reader = try await PersistenceService.open(model: model, backend: readerBackend)
            let changes = ChangeCollector(reader.changes(of: Vehicle.self))
            let commits = 64
            let ids = try await withThrowingTaskGroup(of: ModelID<Vehicle>.self) { group in
                for number in 0..<commits {
                    group.addTask {
                        try await writer.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "N\(number)" }.id
                    }
                }
                return try await group.reduce(into: Set<ModelID<Vehicle>>()) { $0.insert($1) }
            }
            let seen = await changes.wait { inserted($0) == ids }
            #expect(inserted(seen) == ids, "the other node was not woken for every commit")
            let sent = writerBackend.notifier.sentCount
            #expect(sent >= 1)
            #expect(sent < commits, "\(sent) notifications for \(commits) concurrent commits")
            try await writerBackend.close()
            try await readerBackend.close()
        }

        /// The listener's connection is killed by the server while commits happen; the follower reconnects and
        /// delivers every commit made meanwhile.
        @Test func aFollowerThatLosesItsConnectionCatchesUp() async throws {
            let schema = PostgresTestDatabase.freshSchema()
            var configuration = try PostgresTestDatabase.configuration(schema: schema)
            configuration.changeFeed = ChangeFeed.allProcesses(pollInterval: .seconds(30))
            configuration.maximumConnections = 4
            let model = StoreModel(Vehicle.self, Driver.self)
            let writerBackend = PostgresBackend(configuration: configuration)
            let readerBackend = PostgresBackend(configuration: configuration)
            let writer = try await PersistenceService.open(model: model, backend: writerBackend)
            let reader = try await PersistenceService.open(model: model, backend: readerBackend)
            let changes = ChangeCollector(reader.changes(of: Vehicle.self))
            let first = try await writer.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 1 }
            _ = await changes.wait { inserted($0) == [first.id] }

            // Terminate the followers' connections (the last statement they ran reads this schema's log), then write
            // while they are gone.
            let admin = try PostgresTestDatabase.makeClient()
            let run = Task { await admin.run() }
            defer { run.cancel() }
            var terminated = 0
            let pattern = "%pg_snapshot_xmin%" + schema + "%"
            for try await row in try await admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE \(pattern)"
            ) {
                if try row.decode(Bool.self) { terminated += 1 }
            }
            #expect(terminated >= 1)
            var later: [ModelID<Vehicle>] = []
            for year in 2...6 {
                later.append(try await writer.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = year }.id)
            }
            let seen = await changes.wait { inserted($0) == Set([first.id] + later) }
            #expect(inserted(seen) == Set([first.id] + later))
            #expect(readerBackend.changeFeedStatus.isConnected)
            try await writerBackend.close()
            try await readerBackend.close()
        }
    }
}
