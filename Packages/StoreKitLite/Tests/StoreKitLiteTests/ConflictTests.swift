import ModelKit
import StoreKitLite
import Testing

/// Two root services writing the same record, as two processes on one store would.
struct ConflictTests {
    /// A stores a record; B reads it and changes it without saving; A changes it and commits; B commits.
    private func race(
        kind: BackendKind,
        policy: MergePolicy,
        aChanges: @escaping @Sendable (inout Vehicle) -> Void,
        bChanges: @escaping @Sendable (inout Vehicle) -> Void
    ) async throws -> (error: StoreError?, stored: [Vehicle], bystanderStored: Bool) {
        let store = try StoreFixture(kind)
        let a = try await store.open()
        let b = try await store.open(mergePolicy: policy)
        let record = try await a.create(Vehicle.self, options: .saveAndPersist) {
            $0.plate = "P0"
            $0.make = "M0"
            $0.modelYear = 2000
        }
        try await b.update(ids: [record.id]) { vehicles in
            bChanges(&vehicles[0])
            return .dontSave
        }
        let bystander = try await b.create(Vehicle.self, options: .dontSave) { $0.plate = "bystander" }
        try await a.update(ids: [record.id]) { vehicles in
            aChanges(&vehicles[0])
            return .saveAndPersist
        }
        var caught: StoreError?
        do {
            try await b.saveAll(.saveAndPersist)
        } catch {
            caught = error
        }
        let reader = try await store.open()
        return (
            caught, try await reader.fetch(ids: [record.id]),
            try await reader.fetch(ids: [bystander.id]).count == 1
        )
    }

    @Test(arguments: BackendKind.local)
    func theLoserGetsATypedConflictNamingTheRecordAndNothingIsHalfWritten(kind: BackendKind) async throws {
        let outcome = try await race(
            kind: kind,
            policy: .error,
            aChanges: { $0.plate = "A" },
            bChanges: { $0.make = "B" }
        )
        #expect(outcome.error?.code == .conflict)
        #expect(outcome.error?.records == outcome.stored.map(\.id.uuid))
        #expect(outcome.stored.map(\.plate) == ["A"])
        #expect(outcome.stored.map(\.make) == ["M0"])
        #expect(!outcome.bystanderStored)
    }

    @Test(arguments: BackendKind.local)
    func oursWinsWritesOurChangedColumnsOverTheStore(kind: BackendKind) async throws {
        let outcome = try await race(
            kind: kind,
            policy: .oursWins,
            aChanges: {
                $0.plate = "A"; $0.make = "A"
            },
            bChanges: { $0.make = "B" }
        )
        #expect(outcome.error == nil)
        #expect(outcome.stored.map(\.plate) == ["A"])
        #expect(outcome.stored.map(\.make) == ["B"])
        #expect(outcome.bystanderStored)
    }

    @Test(arguments: BackendKind.local)
    func storeWinsKeepsColumnsTheStoreChangedAndWritesOurOthers(kind: BackendKind) async throws {
        let outcome = try await race(
            kind: kind,
            policy: .storeWins,
            aChanges: { $0.plate = "A" },
            bChanges: {
                $0.plate = "B"; $0.make = "B"
            }
        )
        #expect(outcome.error == nil)
        #expect(outcome.stored.map(\.plate) == ["A"])
        #expect(outcome.stored.map(\.make) == ["B"])
        #expect(outcome.bystanderStored)
    }

    @Test(arguments: BackendKind.local)
    func overwriteWritesOurWholeRecord(kind: BackendKind) async throws {
        let outcome = try await race(
            kind: kind,
            policy: .overwrite,
            aChanges: {
                $0.plate = "A"; $0.modelYear = 2024
            },
            bChanges: { $0.make = "B" }
        )
        #expect(outcome.error == nil)
        #expect(outcome.stored.map(\.plate) == ["P0"])
        #expect(outcome.stored.map(\.modelYear) == [2000])
        #expect(outcome.stored.map(\.make) == ["B"])
    }

    @Test(arguments: BackendKind.local)
    func rollbackDropsOurConflictingChangesAndWritesTheRest(kind: BackendKind) async throws {
        let outcome = try await race(
            kind: kind,
            policy: .rollback,
            aChanges: { $0.plate = "A" },
            bChanges: { $0.make = "B" }
        )
        #expect(outcome.error == nil)
        #expect(outcome.stored.map(\.plate) == ["A"])
        #expect(outcome.stored.map(\.make) == ["M0"])
        #expect(outcome.bystanderStored)
    }

    @Test(arguments: BackendKind.local)
    func aFailedCommitKeepsTheChangesPendingSoTheyCanBeRolledBack(kind: BackendKind) async throws {
        let store = try StoreFixture(kind)
        let a = try await store.open()
        let b = try await store.open()
        let record = try await a.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "P0" }
        try await b.delete(ids: [record.id], options: .dontSave)
        try await a.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "A"
            return .saveAndPersist
        }
        await #expect(throws: StoreError.self) { try await b.saveAll(.saveAndPersist) }
        #expect(b.hasChanges)
        b.rollback()
        #expect(try await b.fetch(ids: [record.id]).map(\.plate) == ["A"])
    }

    /// B updates a record that A deletes in the store before B commits.
    @Test(arguments: BackendKind.local, MergePolicy.allCases)
    func anUpdateOfARecordDeletedInTheStoreFollowsTheMergePolicy(
        kind: BackendKind,
        policy: MergePolicy
    )
        async throws
    {
        let store = try StoreFixture(kind)
        let a = try await store.open()
        let b = try await store.open(mergePolicy: policy)
        let record = try await a.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "P0" }
        try await b.update(ids: [record.id]) { vehicles in
            vehicles[0].make = "B"
            return .dontSave
        }
        let bystander = try await b.create(Vehicle.self, options: .dontSave) { $0.plate = "bystander" }
        try await a.delete(ids: [record.id], options: .saveAndPersist)
        if policy == .error {
            let error = await #expect(throws: StoreError.self) { try await b.saveAll(.saveAndPersist) }
            #expect(error?.code == .conflict)
            #expect(error?.records == [record.id.uuid])
        } else {
            try await b.saveAll(.saveAndPersist)
        }
        let reader = try await store.open()
        let stored = try await reader.fetch(ids: [record.id])
        #expect(stored.map(\.make) == (policy == .overwrite ? ["B"] : []))
        #expect(stored.map(\.plate) == (policy == .overwrite ? ["P0"] : []))
        #expect(try await reader.fetch(ids: [bystander.id]).count == (policy == .error ? 0 : 1))
    }
}

extension ConflictTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = ConflictTests()

        @Test func theLoserGetsATypedConflictNamingTheRecordAndNothingIsHalfWritten() async throws {
            try await tests.theLoserGetsATypedConflictNamingTheRecordAndNothingIsHalfWritten(kind: .postgres)
        }

        @Test func oursWinsWritesOurChangedColumnsOverTheStore() async throws {
            try await tests.oursWinsWritesOurChangedColumnsOverTheStore(kind: .postgres)
        }

        @Test func storeWinsKeepsColumnsTheStoreChangedAndWritesOurOthers() async throws {
            try await tests.storeWinsKeepsColumnsTheStoreChangedAndWritesOurOthers(kind: .postgres)
        }

        @Test func overwriteWritesOurWholeRecord() async throws {
            try await tests.overwriteWritesOurWholeRecord(kind: .postgres)
        }

        @Test func rollbackDropsOurConflictingChangesAndWritesTheRest() async throws {
            try await tests.rollbackDropsOurConflictingChangesAndWritesTheRest(kind: .postgres)
        }

        @Test func aFailedCommitKeepsTheChangesPendingSoTheyCanBeRolledBack() async throws {
            try await tests.aFailedCommitKeepsTheChangesPendingSoTheyCanBeRolledBack(kind: .postgres)
        }

        @Test(arguments: MergePolicy.allCases)
        func anUpdateOfARecordDeletedInTheStoreFollowsTheMergePolicy(policy: MergePolicy) async throws {
            try await tests.anUpdateOfARecordDeletedInTheStoreFollowsTheMergePolicy(kind: .postgres, policy: policy)
        }
    }
}
