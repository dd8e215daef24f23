import Dispatch
import Foundation
import ModelKit
import StoreKitLite
import Testing

/// Runs synchronous code on a thread of its own, as an app calling the `…AndWait` forms would.
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct SynchronousFormTests {
    @Test(arguments: BackendKind.local)
    func andWaitFormsDoEveryOperationSynchronously(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = PersistenceService(model: store.model, backend: store.backend)
        let plates = try await onOwnThread { () throws -> [String] in
            try service.blockUntilInitialized()
            let first = try service.createAndWait(Vehicle.self, options: .dontSave) { $0.plate = "one" }
            try service.createAndWait(Vehicle.self, from: ["two", "three"], options: .dontSave) { $1.plate = $0 }
            try service.saveAllAndWait(.saveAndPersist)
            try service.updateAndWait(ids: [first.id]) { vehicles in
                vehicles[0].plate = "uno"
                return .saveAndPersist
            }
            try service.updateAndWait(Query<Vehicle>(\.plate == "two")) { vehicles in
                vehicles[0].plate = "dos"
                return .saveAndPersist
            }
            try service.deleteAndWait(Query<Vehicle>(\.plate == "three"), options: .saveAndPersist)
            #expect(try service.fetchAndWait(ids: [first.id]).map(\.plate) == ["uno"])
            #expect(try service.fetchReadOnlyAndWait(Query<Vehicle>()) { $0.count } == 2)
            #expect(try service.fetchReadOnlyAndWait(ids: [first.id]) { $0.map(\.plate) } == ["uno"])
            try service.createAndWait(Vehicle.self, options: .dontSave) { $0.plate = "discarded" }
            service.rollbackAndWait()
            try service.deleteAndWait(ids: [first.id], options: .dontSave)
            service.rollbackAndWait()
            return try service.fetchAndWait(Query<Vehicle>().sorted(by: \.plate)) { $0.plate }
        }
        #expect(plates == ["dos", "uno"])
    }

    /// The `…AndWait` forms wait for the store, not for a task: they complete while every thread of the
    /// cooperative pool is blocked (a task they waited for could never run then).
    @Test(.timeLimit(.minutes(1)), arguments: [BackendKind.memory, .sqliteFile, .sqliteMemory])
    func andWaitFormsCompleteWhileEveryCooperativeThreadIsBlocked(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let existing = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "stored" }
        let width = ProcessInfo.processInfo.activeProcessorCount
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<width {
            Task.detached {
                entered.signal()
                release.wait()
            }
        }
        let outcome = try await onOwnThread { () throws -> (saturated: Bool, plates: [String], count: Int) in
            defer { for _ in 0..<width { release.signal() } }
            for _ in 0..<width where entered.wait(timeout: .now() + 20) == .timedOut {
                return (false, [], 0)
            }
            try service.createAndWait(Vehicle.self, options: .saveAndPersist) { $0.plate = "blocked pool" }
            try service.updateAndWait(ids: [existing.id]) { vehicles in
                vehicles[0].make = "updated"
                return .saveAndPersist
            }
            let plates = try service.fetchAndWait(Query<Vehicle>().sorted(by: \.plate)) { $0.plate }
            return (true, plates, try service.countAndWait(Query<Vehicle>(\.make == "updated")))
        }
        #expect(outcome.saturated, "the blocking tasks did not all get a thread of the cooperative pool")
        #expect(outcome.plates == ["blocked pool", "stored"])
        #expect(outcome.count == 1)
    }

    @Test func andWaitFormsReportTypedErrors() async throws {
        let store = try StoreFixture(.memory)
        let service = try await store.open()
        let error = try await onOwnThread { () -> StoreError? in
            do throws(StoreError) {
                _ = try service.fetchAndWait(Query<Vehicle>(\.id == .init()))
                return nil
            } catch {
                return error
            }
        }
        #expect(error?.code == .invalidQuery)
    }

    @Test func countAndFetchTakeTheRecordTypeInsteadOfAnEmptyQuery() async throws {
        let store = try StoreFixture(.sqliteFile)
        let service = try await store.open()
        defer { withExtendedLifetime(store) {} }
        try await service.create(Vehicle.self, from: ["one", "two"], options: .saveAndPersist) { $1.plate = $0 }
        #expect(try await service.count(Vehicle.self) == 2)
        #expect(try await service.count(Driver.self) == 0)
        #expect(try await service.fetch(Vehicle.self).map(\.plate).sorted() == ["one", "two"])
    }

    @MainActor
    @Test func aChildUsedFromTheMainActorRunsItsClosuresThere() async throws {
        let service = try await StoreFixture(.memory).open()
        let child = service.makeChild()
        var seenOnMain: [String] = []
        try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "main" }
        try await child.update(Query<Vehicle>()) { vehicles in
            MainActor.assertIsolated()
            seenOnMain = vehicles.map(\.plate)
            return .saveAndPersist
        }
        #expect(seenOnMain == ["main"])
    }
}

extension SynchronousFormTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = SynchronousFormTests()

        @Test func andWaitFormsDoEveryOperationSynchronously() async throws {
            try await tests.andWaitFormsDoEveryOperationSynchronously(kind: .postgres)
        }
    }
}
