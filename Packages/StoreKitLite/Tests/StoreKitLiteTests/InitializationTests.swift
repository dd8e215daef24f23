import Foundation
import StoreKitLite
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
        #expect(error?.kind == .notInitialized)
        let fetchError = await #expect(throws: StoreError.self) { try await service.fetch(Query<Vehicle>()) }
        #expect(fetchError?.kind == .notInitialized)
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
        #expect(error?.kind == .initializationFailed)
        #expect(error?.detail.contains("the model is invalid") == true)
        let later = await #expect(throws: StoreError.self) { try await service.fetch(Query<Vehicle>()) }
        #expect(later?.kind == .initializationFailed)
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
        #expect(error?.kind == .initializationFailed)
        #expect(error?.detail.contains("newer schema") == true)
    }
}
