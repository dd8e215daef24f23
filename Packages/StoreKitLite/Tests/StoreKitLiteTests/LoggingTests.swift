import Foundation
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

struct LoggingTests {
    @Test func aBackendLogsNothingUnlessHandedALogger() {
        #expect(SQLiteBackend(path: "unused.sqlite").logger == nil)
        #expect(SQLiteBackend(location: .memory).logger == nil)
    }

    @Test func openingMigratingAndCommittingAreLoggedWithoutValuesOrPaths() async throws {
        let folder = TemporaryFolder()
        let recorder = LogRecorder()
        let backend = SQLiteBackend(path: folder.path("logged.sqlite"), logger: recorder.logger)
        let service = try await PersistenceService.open(model: StoreModel(Vehicle.self), backend: backend)
        try await service.create(Vehicle.self, from: ["SECRET-PLATE-1", "SECRET-PLATE-2"], options: .saveAndPersist) {
            $1.plate = $0
            $1.make = "SECRET-MAKE"
        }
        try await service.update(Query<Vehicle>(\.plate == "SECRET-PLATE-1")) { vehicles in
            vehicles[0].make = "SECRET-CHANGED"
            return .saveAndPersist
        }

        let entries = recorder.entries
        let opened = entries.first { $0.message == "opened store" }
        #expect(opened?.metadata["storekitlite.location"] == "logged.sqlite")
        #expect(opened?.metadata["storekitlite.durability"] == "full")
        let migrations = entries.filter { $0.message == "applied migration" }
        #expect(migrations.map { $0.metadata["storekitlite.migration"] } == ["create vehicles"])
        let commits = entries.filter { $0.message == "committing batch" }
        #expect(commits.map { $0.metadata["storekitlite.inserts"] } == ["2", "0"])
        #expect(commits.map { $0.metadata["storekitlite.updates"] } == ["0", "1"])
        #expect(commits.allSatisfy { "\($0.level)" == "trace" })
        #expect(!entries.contains { $0.mentions("SECRET") })
        #expect(!entries.contains { $0.mentions(folder.url.path) })
    }

    @Test func aFailedCommitIsLoggedByKindOnly() async throws {
        let recorder = LogRecorder()
        let backend = SQLiteBackend(location: .memory, logger: recorder.logger)
        let first = try await PersistenceService.open(model: StoreModel(Vehicle.self), backend: backend)
        let second = try await PersistenceService.open(model: StoreModel(Vehicle.self), backend: backend)
        let vehicle = try await first.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "SECRET-PLATE" }
        try await second.update(ids: [vehicle.id]) { vehicles in
            vehicles[0].make = "SECRET-FIRST"
            return .dontSave
        }
        try await first.update(ids: [vehicle.id]) { vehicles in
            vehicles[0].make = "SECRET-SECOND"
            return .saveAndPersist
        }
        await #expect(throws: StoreError.self) { try await second.saveAll(.saveAndPersist) }

        let failures = recorder.entries.filter { $0.message == "store operation failed" }
        #expect(failures.count == 1)
        #expect(failures.first?.metadata["storekitlite.operation"] == "write")
        #expect(failures.first?.metadata["storekitlite.error"] == "\(StoreError.Code.conflict)")
        #expect(failures.allSatisfy { "\($0.level)" == "debug" })
        #expect(!recorder.entries.contains { $0.mentions("SECRET") })
    }
}
