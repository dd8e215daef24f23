import Foundation
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// A backend whose migration waits until the test releases it: the gate is the feature under test.
private final class GatedBackend: StoreBackend {
    let inner = InMemoryBackend()
    private let gate = AsyncStream<Void>.makeStream()

    func open() {
        gate.continuation.yield()
    }

    func migrate(to model: StoreModel) async throws(StoreError) {
        for await _ in gate.stream { break }
        try await inner.migrate(to: model)
    }

    func apply(_ batch: ChangeBatch) async throws(StoreError) { try await inner.apply(batch) }
    func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow] { try await inner.fetch(query) }
    func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        try await inner.fetch(ids: ids, of: entity)
    }
    func committedChanges() -> AsyncStream<ChangeBatch> { inner.committedChanges() }
}

struct InitializationTests {
    @Test func operationsBeforeInitializationFailWithATypedErrorThenWorkAfterIt() async throws {
        let backend = GatedBackend()
        let service = PersistenceService(model: StoreModel(Vehicle.self), backend: backend)
        let child = service.makeChild()
        #expect(!service.isInitialized)
        #expect(!child.isInitialized)
        let error = await #expect(throws: StoreError.self) {
            try await child.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "early" }
        }
        #expect(error?.code == .notInitialized)
        let fetchError = await #expect(throws: StoreError.self) { try await service.fetch(Query<Vehicle>()) }
        #expect(fetchError?.code == .notInitialized)
        backend.open()
        try await child.waitUntilInitialized()
        #expect(service.isInitialized)
        #expect(child.isInitialized)
        try await child.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "late" }
        #expect(try await service.count(Query<Vehicle>()) == 1)
    }

    @Test func anInvalidModelFailsInitializationAndEveryLaterOperation() async throws {
        let model = StoreModel(entities: [Vehicle.schema.entity], migrations: [])
        let service = PersistenceService(model: model, backend: InMemoryBackend())
        let error = await #expect(throws: StoreError.self) { try await service.waitUntilInitialized() }
        #expect(error?.code == .invalidModel)
        let later = await #expect(throws: StoreError.self) { try await service.fetch(Query<Vehicle>()) }
        #expect(later?.code == .invalidModel)
    }

    @Test func aStoreFromANewerSchemaIsRejectedAndKeepsItsData() async throws {
        let backend = InMemoryBackend()
        let mileage = ColumnDescription(name: "odometer", type: .real, isNullable: true)
        let newer = StoreModel(
            entities: [EntityDescription(name: "vehicles", columns: Vehicle.schema.entity.columns + [mileage])],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(Vehicle.schema.entity)]),
                Migration(
                    "add odometer",
                    steps: [.addColumn(entity: "vehicles", column: mileage, defaultValue: .null)]
                ),
            ]
        )
        let writer = try await PersistenceService.open(model: newer, backend: backend)
        _ = writer
        let older = StoreModel(
            records: [Vehicle.self],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(Vehicle.schema.entity)])
            ]
        )
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: older, backend: backend)
        }
        #expect(error?.code == .newerSchema)
    }

    @Test func indexesAreMigrationStepsThatChangeNoResult() async throws {
        let indexed = StoreModel(
            records: [Vehicle.self],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(Vehicle.schema.entity)]),
                Migration(
                    "index plates and years",
                    steps: [
                        .createIndex(name: "vehicles_plate", entity: "vehicles", columns: ["plate"]),
                        .createIndex(name: "vehicles_make_year", entity: "vehicles", columns: ["make", "modelYear"]),
                    ]
                ),
            ]
        )
        let folder = TemporaryFolder()
        for backend: any StoreBackend in [SQLiteBackend(path: folder.path("indexed.sqlite")), InMemoryBackend()] {
            let service = try await PersistenceService.open(model: indexed, backend: backend)
            try await service.create(Vehicle.self, from: ["C", "A", "B", "A2"], options: .saveAndPersist) {
                $1.plate = $0
                $1.make = "Volvo"
                $1.modelYear = 2020
            }
            let plates = try await service.fetch(Query<Vehicle>(\.plate > "A").sorted(by: \.plate)) { $0.plate }
            #expect(plates == ["A2", "B", "C"])
        }
        let reopened = try await PersistenceService.open(
            model: indexed,
            backend: SQLiteBackend(path: folder.path("indexed.sqlite"))
        )
        #expect(try await reopened.count(Query<Vehicle>(\.make == "Volvo" && \.modelYear == 2020)) == 4)
    }

    @Test(arguments: [
        [MigrationStep.createIndex(name: "i", entity: "vehicles", columns: ["nope"])],
        [.createIndex(name: "i", entity: "vehicles", columns: [])],
        [.createIndex(name: "i", entity: "drivers", columns: ["name"])],
        [
            .createIndex(name: "i", entity: "vehicles", columns: ["plate"]),
            .createIndex(name: "i", entity: "vehicles", columns: ["make"]),
        ],
    ])
    func badIndexesAreAnInvalidModel(steps: [MigrationStep]) {
        let model = StoreModel(
            records: [Vehicle.self],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(Vehicle.schema.entity)]),
                Migration("index", steps: steps),
            ]
        )
        let error = #expect(throws: StoreError.self) { try model.validate() }
        #expect(error?.code == .invalidModel)
    }
}
