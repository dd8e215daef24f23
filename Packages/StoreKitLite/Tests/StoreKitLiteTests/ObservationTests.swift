import StoreKitLite
import Testing

struct ObservationTests {
    @Test(arguments: BackendKind.local)
    func committedChangesArriveOncePerCommitPerRecordType(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let changes = service.changes(of: Vehicle.self)
        let child = service.makeChild()
        let ids = try await child.create(Vehicle.self, from: [1, 2], options: .saveCurrentOnly) { $1.modelYear = $0 }
        try await service.create(Driver.self, options: .saveAndPersist) { $0.name = "not a vehicle" }
        try await service.update(ids: [ids[0]]) { vehicles in
            vehicles[0].modelYear = 10
            return .saveAndPersist
        }
        try await service.delete(ids: [ids[1]], options: .saveAndPersist)
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        let third = await iterator.next()
        #expect(Set(first?.inserted ?? []) == Set(ids))
        #expect(first?.updated.isEmpty == true)
        #expect(second?.updated == [ids[0]])
        #expect(third?.deleted == [ids[1]])
    }

    @Test(arguments: BackendKind.local)
    func queryObservationDeliversOnlyCommitsTouchingMatchingRecords(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let recent = service.changes(matching: Query<Vehicle>(\.modelYear >= 2020))
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 1990 }
        let match = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.modelYear = 2021 }
        var iterator = recent.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.inserted == [match.id])
    }
}

extension ObservationTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = ObservationTests()

        @Test func committedChangesArriveOncePerCommitPerRecordType() async throws {
            try await tests.committedChangesArriveOncePerCommitPerRecordType(kind: .postgres)
        }

        @Test func queryObservationDeliversOnlyCommitsTouchingMatchingRecords() async throws {
            try await tests.queryObservationDeliversOnlyCommitsTouchingMatchingRecords(kind: .postgres)
        }
    }
}
