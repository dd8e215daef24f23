import Foundation
import ModelKit
import StoreKitLite
import Testing

struct PersistenceServiceTests {
    @Test(arguments: BackendKind.local)
    func createdRecordsHavePermanentTimeOrderedIDsAndReadBack(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let first = try await service.create(Vehicle.self, options: .saveAndPersist) {
            $0.plate = "AB-123"
            $0.make = "Volvo"
            $0.modelYear = 2021
        }
        let second = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "CD-456" }
        #expect(first.id < second.id)
        #expect(first.id.timestamp != nil)
        let fetched = try await service.fetch(ids: [second.id, first.id])
        #expect(fetched == [second, first])
    }

    @Test(arguments: BackendKind.local)
    func createManyTransformsPlainValuesAndFetchTransformMapsBack(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let plates = (0..<50).map { "P-\($0)" }
        let ids = try await service.create(Vehicle.self, from: plates, options: .saveAndPersist) { plate, vehicle in
            vehicle.plate = plate
            vehicle.modelYear = 2000 + Int(plate.dropFirst(2))!
        }
        #expect(ids.count == 50)
        let recent = try await service.fetch(Query<Vehicle>(\.modelYear >= 2040).sorted(by: \.modelYear)) {
            $0.plate
        }
        #expect(recent == (40..<50).map { "P-\($0)" })
    }

    @Test(arguments: BackendKind.local)
    func readOnlyFetchHandsOutCopiesThatCannotChangeTheStore(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "X" }
        var copies = try await service.fetchReadOnly(Query<Vehicle>()) { $0 }
        copies[0].plate = "changed"
        let stored = try await service.fetch(Query<Vehicle>())
        #expect(stored.map(\.plate) == ["X"])
    }

    @Test(arguments: BackendKind.local)
    func updateWritesChangesAndReturnsTheCountOfChangedRecords(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        try await service.create(Vehicle.self, from: [2019, 2020, 2021], options: .saveAndPersist) { $1.modelYear = $0 }
        let changed = try await service.update(Query<Vehicle>(\.modelYear >= 2020)) { vehicles in
            for index in vehicles.indices { vehicles[index].mileage = 10 }
            return .saveAndPersist
        }
        #expect(changed == 2)
        let other = try await store.open()
        let mileages = try await other.fetch(Query<Vehicle>().sorted(by: \.modelYear)) { $0.mileage }
        #expect(mileages == [nil, 10, 10])
    }

    @Test(arguments: BackendKind.local)
    func changingAnIDInAnUpdateIsATypedErrorAndRecordsNothing(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let vehicle = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "A" }
        let error = await #expect(throws: StoreError.self) {
            try await service.update(ids: [vehicle.id]) { vehicles in
                vehicles[0].plate = "B"
                vehicles[0].id = ModelID()
                return .saveAndPersist
            }
        }
        #expect(error?.code == .idChanged)
        #expect(error?.records == [vehicle.id.uuid])
        #expect(!service.hasChanges)
        #expect(try await service.fetch(ids: [vehicle.id]).map(\.plate) == ["A"])
    }

    @Test(arguments: BackendKind.local)
    func deleteByQueryAndByIDsRemoveRecords(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let ids = try await service.create(Vehicle.self, from: 1...6, options: .saveAndPersist) { $1.modelYear = $0 }
        let byQuery = try await service.delete(Query<Vehicle>(\.modelYear <= 2), options: .saveAndPersist)
        let byIDs = try await service.delete(ids: [ids[5], ids[0]], options: .saveAndPersist)
        #expect(byQuery == 2)
        #expect(byIDs == 1)
        #expect(try await service.fetch(Query<Vehicle>()) { $0.modelYear } == [3, 4, 5])
    }

    @Test(arguments: BackendKind.local)
    func recordTypesDoNotMix(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let service = try await store.open()
        let vehicle = try await service.create(Vehicle.self, options: .dontSave) { $0.plate = "V" }
        try await service.create(Driver.self, options: .saveAndPersist) {
            $0.name = "Ann"
            $0.vehicle = vehicle.id
        }
        #expect(try await service.count(Query<Vehicle>()) == 1)
        let drivers = try await service.fetch(Query<Driver>(\.vehicle == vehicle.id))
        #expect(drivers.map(\.name) == ["Ann"])
    }

    @Test func aQueryOnAPropertyThatIsNotAColumnIsATypedError() async throws {
        let service = try await StoreFixture(.memory).open()
        let error = await #expect(throws: StoreError.self) {
            try await service.fetch(Query<Vehicle>(\.id == ModelID()))
        }
        #expect(error?.code == .invalidQuery)
    }
}

extension PersistenceServiceTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = PersistenceServiceTests()

        @Test func createdRecordsHavePermanentTimeOrderedIDsAndReadBack() async throws {
            try await tests.createdRecordsHavePermanentTimeOrderedIDsAndReadBack(kind: .postgres)
        }

        @Test func createManyTransformsPlainValuesAndFetchTransformMapsBack() async throws {
            try await tests.createManyTransformsPlainValuesAndFetchTransformMapsBack(kind: .postgres)
        }

        @Test func readOnlyFetchHandsOutCopiesThatCannotChangeTheStore() async throws {
            try await tests.readOnlyFetchHandsOutCopiesThatCannotChangeTheStore(kind: .postgres)
        }

        @Test func updateWritesChangesAndReturnsTheCountOfChangedRecords() async throws {
            try await tests.updateWritesChangesAndReturnsTheCountOfChangedRecords(kind: .postgres)
        }

        @Test func changingAnIDInAnUpdateIsATypedErrorAndRecordsNothing() async throws {
            try await tests.changingAnIDInAnUpdateIsATypedErrorAndRecordsNothing(kind: .postgres)
        }

        @Test func deleteByQueryAndByIDsRemoveRecords() async throws {
            try await tests.deleteByQueryAndByIDsRemoveRecords(kind: .postgres)
        }

        @Test func recordTypesDoNotMix() async throws {
            try await tests.recordTypesDoNotMix(kind: .postgres)
        }
    }
}
