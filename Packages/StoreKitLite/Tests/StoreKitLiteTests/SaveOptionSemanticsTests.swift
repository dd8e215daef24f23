import StoreKitLite
import Testing

/// The save options and the hierarchy, as ARCHITECTURE.md defines them.
struct SaveOptionSemanticsTests {
    @Test(arguments: BackendKind.local)
    func dontSaveKeepsChangesPendingVisibleToTheServiceAndItsChildrenOnly(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let child = root.makeChild()
        let grandchild = child.makeChild()
        let sibling = root.makeChild()
        try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "pending" }
        #expect(try await child.count(Query<Vehicle>()) == 1)
        #expect(try await grandchild.count(Query<Vehicle>()) == 1)
        #expect(try await root.count(Query<Vehicle>()) == 0)
        #expect(try await sibling.count(Query<Vehicle>()) == 0)
        #expect(try await store.open().count(Query<Vehicle>()) == 0)
        child.rollback()
        #expect(try await grandchild.count(Query<Vehicle>()) == 0)
    }

    @Test(arguments: BackendKind.local)
    func saveCurrentOnlyInAChildMovesChangesIntoTheParentOnly(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let child = root.makeChild()
        let sibling = root.makeChild()
        try await child.create(Vehicle.self, options: .saveCurrentOnly) { $0.plate = "moved" }
        #expect(!child.hasChanges)
        #expect(root.hasChanges)
        #expect(try await root.count(Query<Vehicle>()) == 1)
        #expect(try await sibling.count(Query<Vehicle>()) == 1)
        #expect(try await store.open().count(Query<Vehicle>()) == 0)
        root.rollback()
        #expect(try await child.count(Query<Vehicle>()) == 0)
    }

    @Test(arguments: BackendKind.local)
    func saveCurrentOnlyInTheRootWritesToTheStore(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        try await root.create(Vehicle.self, options: .saveCurrentOnly) { $0.plate = "stored" }
        #expect(!root.hasChanges)
        #expect(try await store.open().fetch(Query<Vehicle>()) { $0.plate } == ["stored"])
    }

    @Test(arguments: BackendKind.local)
    func saveAndPersistFromAGrandchildReachesTheStoreWithEverythingPendingOnTheWay(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let child = root.makeChild()
        let grandchild = child.makeChild()
        try await root.create(Vehicle.self, options: .dontSave) { $0.plate = "root" }
        try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "child" }
        try await grandchild.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "grandchild" }
        #expect(!root.hasChanges && !child.hasChanges && !grandchild.hasChanges)
        let plates = try await store.open().fetch(Query<Vehicle>().sorted(by: \.plate)) { $0.plate }
        #expect(plates == ["child", "grandchild", "root"])
    }

    @Test(arguments: BackendKind.local)
    func severalOperationsFormOneTransactionWithSaveAll(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let worker = root.makeChild()
        let kept = try await worker.create(Vehicle.self, options: .dontSave) { $0.plate = "kept" }
        try await worker.create(Vehicle.self, options: .dontSave) { $0.plate = "dropped" }
        try await worker.update(ids: [kept.id]) { vehicles in
            vehicles[0].modelYear = 2024
            return .dontSave
        }
        try await worker.delete(Query<Vehicle>(\.plate == "dropped"), options: .dontSave)
        #expect(try await store.open().count(Query<Vehicle>()) == 0)
        try await worker.saveAll(.saveAndPersist)
        let stored = try await store.open().fetch(Query<Vehicle>())
        #expect(stored.map(\.plate) == ["kept"])
        #expect(stored.map(\.modelYear) == [2024])
    }

    @Test(arguments: BackendKind.local)
    func rollbackDiscardsOnlyTheServicesOwnUnsavedChanges(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let saved = try await root.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "saved" }
        let child = root.makeChild()
        try await child.update(ids: [saved.id]) { vehicles in
            vehicles[0].plate = "edited"
            return .saveCurrentOnly
        }
        try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "new" }
        child.rollback()
        #expect(try await child.fetch(Query<Vehicle>()) { $0.plate } == ["edited"])
        root.rollback()
        #expect(try await child.fetch(Query<Vehicle>()) { $0.plate } == ["saved"])
    }

    @Test(arguments: BackendKind.local)
    func readsOverlayUnsavedChangesOnTheStoreWithOneSemantics(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let ids = try await root.create(Vehicle.self, from: 1...10, options: .saveAndPersist) { $1.modelYear = $0 }
        let child = root.makeChild()
        // Move a stored record out of the query, one into it, delete one, add one.
        try await child.update(ids: [ids[8]]) { vehicles in
            vehicles[0].modelYear = 0
            return .dontSave
        }
        try await child.update(ids: [ids[0]]) { vehicles in
            vehicles[0].modelYear = 100
            return .dontSave
        }
        try await child.delete(ids: [ids[7]], options: .dontSave)
        try await child.create(Vehicle.self, options: .dontSave) { $0.modelYear = 50 }
        let query = Query<Vehicle>(\.modelYear >= 5).sorted(by: \.modelYear, ascending: false).offset(1).limit(3)
        #expect(try await child.fetch(query) { $0.modelYear } == [50, 10, 7])
        #expect(try await root.fetch(query) { $0.modelYear } == [9, 8, 7])
        try await child.saveAll(.saveAndPersist)
        #expect(try await store.open().fetch(query) { $0.modelYear } == [50, 10, 7])
    }

    @Test(arguments: BackendKind.local)
    func updatesThenSavesFoldIntoTheRightChanges(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let child = root.makeChild()
        let created = try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "a" }
        try await child.update(ids: [created.id]) { vehicles in
            vehicles[0].plate = "b"
            return .saveCurrentOnly
        }
        let temporary = try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "temp" }
        try await child.delete(ids: [temporary.id], options: .saveAndPersist)
        #expect(try await store.open().fetch(Query<Vehicle>()) { $0.plate } == ["b"])
    }
}

extension SaveOptionSemanticsTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = SaveOptionSemanticsTests()

        @Test func dontSaveKeepsChangesPendingVisibleToTheServiceAndItsChildrenOnly() async throws {
            try await tests.dontSaveKeepsChangesPendingVisibleToTheServiceAndItsChildrenOnly(kind: .postgres)
        }

        @Test func saveCurrentOnlyInAChildMovesChangesIntoTheParentOnly() async throws {
            try await tests.saveCurrentOnlyInAChildMovesChangesIntoTheParentOnly(kind: .postgres)
        }

        @Test func saveCurrentOnlyInTheRootWritesToTheStore() async throws {
            try await tests.saveCurrentOnlyInTheRootWritesToTheStore(kind: .postgres)
        }

        @Test func saveAndPersistFromAGrandchildReachesTheStoreWithEverythingPendingOnTheWay() async throws {
            try await tests.saveAndPersistFromAGrandchildReachesTheStoreWithEverythingPendingOnTheWay(kind: .postgres)
        }

        @Test func severalOperationsFormOneTransactionWithSaveAll() async throws {
            try await tests.severalOperationsFormOneTransactionWithSaveAll(kind: .postgres)
        }

        @Test func rollbackDiscardsOnlyTheServicesOwnUnsavedChanges() async throws {
            try await tests.rollbackDiscardsOnlyTheServicesOwnUnsavedChanges(kind: .postgres)
        }

        @Test func readsOverlayUnsavedChangesOnTheStoreWithOneSemantics() async throws {
            try await tests.readsOverlayUnsavedChangesOnTheStoreWithOneSemantics(kind: .postgres)
        }

        @Test func updatesThenSavesFoldIntoTheRightChanges() async throws {
            try await tests.updatesThenSavesFoldIntoTheRightChanges(kind: .postgres)
        }
    }
}
