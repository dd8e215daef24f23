import Foundation
import StoreKitLite
import Testing

@testable import StoreKitLiteSQLite

/// Concurrent durable commits share transactions, and each caller still returns only once its own change is
/// stored; a failing member fails alone.
struct GroupCommitTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    @Test func concurrentCreatesShareTransactionsAndEachReturnsAfterItsOwn() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("group.sqlite")
        let backend = SQLiteBackend(path: path, durability: .full)
        let service = try await PersistenceService.open(model: model, backend: backend)
        let reader = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        let creates = 128
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<creates {
                group.addTask {
                    let vehicle = try await service.create(Vehicle.self, options: .saveAndPersist) {
                        $0.plate = "G\(number)"
                    }
                    #expect(
                        try await reader.fetch(ids: [vehicle.id]) == [vehicle],
                        "create \(number) returned before a fresh reader could see it"
                    )
                }
            }
            try await group.waitForAll()
        }
        #expect(try await reader.count(Vehicle.self) == creates)
        let transactions = backend.groupTransactions
        #expect(transactions >= 1)
        #expect(transactions < creates, "\(creates) concurrent creates took \(transactions) transactions")
        try await service.close()
    }

    @Test func aMemberThatFailsIsRolledBackAloneAndTheOthersAreStored() async throws {
        let folder = TemporaryFolder()
        let service = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: folder.path("members.sqlite"))
        )
        let existing = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "kept" }
        // Half the members insert a record that is already stored (a duplicate ID fails that member's batch).
        let outcomes = try await withThrowingTaskGroup(of: (Int, StoreError.Code?).self) { group in
            for number in 0..<64 {
                group.addTask {
                    do throws(StoreError) {
                        if number.isMultiple(of: 2) {
                            try await service.makeChild().insert([existing], options: .saveAndPersist)
                        } else {
                            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "M\(number)" }
                        }
                        return (number, nil)
                    } catch {
                        return (number, error.code)
                    }
                }
            }
            return try await group.reduce(into: [Int: StoreError.Code?]()) { $0[$1.0] = $1.1 }
        }
        for number in 0..<64 {
            let expected: StoreError.Code? = number.isMultiple(of: 2) ? .duplicateRecord : nil
            #expect(outcomes[number] == expected, "member \(number)")
        }
        let plates = try await service.fetch(Query<Vehicle>()).map(\.plate)
        #expect(Set(plates) == Set(["kept"] + (0..<64).filter { !$0.isMultiple(of: 2) }.map { "M\($0)" }))
    }
}
