import ModelKit
import StoreKitLite
import StoreKitLiteSQLite
import Testing

/// Many tasks saving through one hierarchy at once, and sibling services saving into one parent.
struct ConcurrentSaveTests {
    /// A reader that shares nothing with the writer's hierarchy: for a file, another backend on the same file.
    private func freshReader(of store: StoreFixture) async throws -> PersistenceService {
        guard store.kind == .sqliteFile || store.kind == .sqliteFileCallingThread else { return try await store.open() }
        return try await PersistenceService.open(
            model: store.model,
            backend: SQLiteBackend(path: store.folder.path("store.sqlite"))
        )
    }

    @Test(arguments: BackendKind.local, [false, true])
    func everySaveAndPersistReturnsOnlyAfterTheCommitThatCarriesIt(
        kind: BackendKind,
        childPerWrite: Bool
    )
        async throws
    {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let reader = try await freshReader(of: store)
        let rounds = 10
        let tasks = 64
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let unit = { childPerWrite ? root.makeChild() : root }
                    let mine = try await unit().create(Vehicle.self, options: .saveAndPersist) {
                        $0.plate = "T\(task)"
                    }
                    #expect(try await reader.fetch(ids: [mine.id]).count == 1)
                    for round in 1...rounds {
                        let changed = try await unit().update(ids: [mine.id]) { vehicles in
                            vehicles[0].modelYear = round
                            return .saveAndPersist
                        }
                        #expect(changed == 1)
                        let seen = try await reader.fetch(ids: [mine.id]).first?.modelYear
                        #expect(seen == round, "task \(task) returned from round \(round) before its commit")
                        let worker = unit()
                        let extra = try await worker.create(Vehicle.self, options: .dontSave) {
                            $0.plate = "T\(task)-\(round)"
                        }
                        try await worker.saveAll(.saveAndPersist)
                        #expect(try await reader.fetch(ids: [extra.id]).count == 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(!root.hasChanges)
        #expect(try await reader.count(Query<Vehicle>()) == tasks * (1 + rounds))
    }

    @Test(arguments: BackendKind.local)
    func aFailedCommitGoesBackToTheServiceThatSavedAndOtherWritersAreNotHeldBack(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let contested = try await root.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "X" }
        let free = try await root.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "Y" }
        let stale = root.makeChild()
        try await stale.update(ids: [contested.id]) { vehicles in
            vehicles[0].make = "stale"
            return .dontSave
        }
        let elsewhere = try await store.open()
        try await elsewhere.update(ids: [contested.id]) { vehicles in
            vehicles[0].make = "elsewhere"
            return .saveAndPersist
        }
        let error = await #expect(throws: StoreError.self) { try await stale.saveAll(.saveAndPersist) }
        #expect(error?.code == .conflict)
        #expect(error?.records == [contested.id.uuid])
        #expect(stale.hasChanges)
        #expect(!root.hasChanges)
        try await root.makeChild().update(ids: [free.id]) { vehicles in
            vehicles[0].make = "free"
            return .saveAndPersist
        }
        let reader = try await freshReader(of: store)
        #expect(try await reader.fetch(ids: [free.id]).map(\.make) == ["free"])
        #expect(try await reader.fetch(ids: [contested.id]).map(\.make) == ["elsewhere"])
        stale.rollback()
        #expect(try await stale.fetch(ids: [contested.id]).map(\.make) == ["elsewhere"])
    }

    @Test(arguments: BackendKind.local)
    func siblingsThatChangeDifferentColumnsOfOneRecordKeepBothChanges(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let record = try await root.create(Vehicle.self, options: .saveAndPersist) {
            $0.plate = "P0"
            $0.make = "M0"
        }
        let a = root.makeChild()
        let b = root.makeChild()
        try await a.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "A"
            return .dontSave
        }
        try await b.update(ids: [record.id]) { vehicles in
            vehicles[0].make = "B"
            return .dontSave
        }
        try await a.saveAll(.saveCurrentOnly)
        try await b.saveAll(.saveCurrentOnly)
        let merged = try await root.fetch(ids: [record.id])
        #expect(merged.map(\.plate) == ["A"])
        #expect(merged.map(\.make) == ["B"])
        try await root.saveAll(.saveAndPersist)
        let stored = try await freshReader(of: store).fetch(ids: [record.id])
        #expect(stored.map(\.plate) == ["A"])
        #expect(stored.map(\.make) == ["B"])
    }

    @Test(arguments: BackendKind.local)
    func siblingsChangingDifferentColumnsOfAPendingInsertKeepBothChanges(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let record = try await root.create(Vehicle.self, options: .dontSave) { $0.plate = "new" }
        let a = root.makeChild()
        let b = root.makeChild()
        try await a.update(ids: [record.id]) { vehicles in
            vehicles[0].modelYear = 2024
            return .dontSave
        }
        try await b.update(ids: [record.id]) { vehicles in
            vehicles[0].make = "B"
            return .dontSave
        }
        try await a.saveAll(.saveCurrentOnly)
        try await b.saveAll(.saveAndPersist)
        let stored = try await freshReader(of: store).fetch(ids: [record.id])
        #expect(stored.map(\.modelYear) == [2024])
        #expect(stored.map(\.make) == ["B"])
        #expect(stored.map(\.plate) == ["new"])
    }

    /// A changes plate and year, B (saving second) changes plate and make, both from the same read.
    @Test(arguments: BackendKind.local, MergePolicy.allCases)
    func siblingsThatChangeTheSameColumnFollowTheMergePolicy(
        kind: BackendKind,
        policy: MergePolicy
    )
        async throws
    {
        let store = try StoreFixture(kind)
        let root = try await store.open(mergePolicy: policy)
        let record = try await root.create(Vehicle.self, options: .saveAndPersist) {
            $0.plate = "P0"
            $0.make = "M0"
            $0.modelYear = 2000
        }
        let a = root.makeChild()
        let b = root.makeChild()
        try await a.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "A"
            vehicles[0].modelYear = 2001
            return .dontSave
        }
        try await b.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "B"
            vehicles[0].make = "B"
            return .dontSave
        }
        try await a.saveAll(.saveCurrentOnly)
        if policy == .error {
            let error = await #expect(throws: StoreError.self) { try await b.saveAll(.saveCurrentOnly) }
            #expect(error?.code == .conflict)
            #expect(error?.records == [record.id.uuid])
            #expect(b.hasChanges)
            #expect(try await b.fetch(ids: [record.id]).map(\.plate) == ["B"])
        } else {
            try await b.saveAll(.saveCurrentOnly)
            #expect(!b.hasChanges)
        }
        let seen = try #require(try await root.fetch(ids: [record.id]).first)
        let expected: (plate: String, make: String, year: Int) =
            switch policy {
            case .error, .rollback: ("A", "M0", 2001)
            case .oursWins: ("B", "B", 2001)
            case .storeWins: ("A", "B", 2001)
            case .overwrite: ("B", "B", 2000)
            }
        #expect(seen.plate == expected.plate)
        #expect(seen.make == expected.make)
        #expect(seen.modelYear == expected.year)
        try await root.saveAll(.saveAndPersist)
        let stored = try #require(try await freshReader(of: store).fetch(ids: [record.id]).first)
        #expect(stored == seen)
    }

    @Test(arguments: BackendKind.local, MergePolicy.allCases)
    func anUpdateOfARecordASiblingDeletedFollowsTheMergePolicy(
        kind: BackendKind,
        policy: MergePolicy
    )
        async throws
    {
        let store = try StoreFixture(kind)
        let root = try await store.open(mergePolicy: policy)
        let record = try await root.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "P0" }
        let deleter = root.makeChild()
        let updater = root.makeChild()
        try await updater.update(ids: [record.id]) { vehicles in
            vehicles[0].make = "kept?"
            return .dontSave
        }
        try await deleter.delete(ids: [record.id], options: .saveCurrentOnly)
        if policy == .error {
            let error = await #expect(throws: StoreError.self) { try await updater.saveAll(.saveCurrentOnly) }
            #expect(error?.code == .conflict)
        } else {
            try await updater.saveAll(.saveCurrentOnly)
        }
        let seen = try await root.fetch(ids: [record.id])
        #expect(seen.map(\.make) == (policy == .overwrite ? ["kept?"] : []))
    }

    @Test(arguments: BackendKind.local)
    func aDeleteMadeOnAnOlderStateThanTheParentsConflicts(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let record = try await root.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "P0" }
        let deleter = root.makeChild()
        let updater = root.makeChild()
        try await deleter.delete(ids: [record.id], options: .dontSave)
        try await updater.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "changed"
            return .saveCurrentOnly
        }
        let error = await #expect(throws: StoreError.self) { try await deleter.saveAll(.saveCurrentOnly) }
        #expect(error?.code == .conflict)
        // Read after the sibling's save, a delete goes through.
        let informed = root.makeChild()
        try await informed.delete(ids: [record.id], options: .saveAndPersist)
        #expect(try await freshReader(of: store).fetch(ids: [record.id]).isEmpty)
    }
}

extension ConcurrentSaveTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = ConcurrentSaveTests()

        @Test(arguments: [false, true])
        func everySaveAndPersistReturnsOnlyAfterTheCommitThatCarriesIt(childPerWrite: Bool) async throws {
            try await tests.everySaveAndPersistReturnsOnlyAfterTheCommitThatCarriesIt(
                kind: .postgres,
                childPerWrite: childPerWrite
            )
        }

        @Test func aFailedCommitGoesBackToTheServiceThatSavedAndOtherWritersAreNotHeldBack() async throws {
            try await tests.aFailedCommitGoesBackToTheServiceThatSavedAndOtherWritersAreNotHeldBack(kind: .postgres)
        }

        @Test func siblingsThatChangeDifferentColumnsOfOneRecordKeepBothChanges() async throws {
            try await tests.siblingsThatChangeDifferentColumnsOfOneRecordKeepBothChanges(kind: .postgres)
        }

        @Test func siblingsChangingDifferentColumnsOfAPendingInsertKeepBothChanges() async throws {
            try await tests.siblingsChangingDifferentColumnsOfAPendingInsertKeepBothChanges(kind: .postgres)
        }

        @Test(arguments: MergePolicy.allCases)
        func siblingsThatChangeTheSameColumnFollowTheMergePolicy(policy: MergePolicy) async throws {
            try await tests.siblingsThatChangeTheSameColumnFollowTheMergePolicy(kind: .postgres, policy: policy)
        }

        @Test(arguments: MergePolicy.allCases)
        func anUpdateOfARecordASiblingDeletedFollowsTheMergePolicy(policy: MergePolicy) async throws {
            try await tests.anUpdateOfARecordASiblingDeletedFollowsTheMergePolicy(kind: .postgres, policy: policy)
        }

        @Test func aDeleteMadeOnAnOlderStateThanTheParentsConflicts() async throws {
            try await tests.aDeleteMadeOnAnOlderStateThanTheParentsConflicts(kind: .postgres)
        }
    }
}
