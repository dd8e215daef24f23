import Foundation
import PostgresNIO
import StoreKitLite
import StoreKitLitePostgres
import Testing

/// What only a PostgreSQL store shows: several processes ("nodes") on one store, connection and login failures,
/// and values PostgreSQL cannot hold.
@Suite(.droppingPostgresSchemas)
struct PostgresBackendTests {
    static let items = EntityDescription(
        name: "items",
        columns: [
            ColumnDescription(name: "name", type: .text, isNullable: false),
            ColumnDescription(name: "score", type: .integer, isNullable: true),
        ]
    )
    static let model = StoreModel(
        entities: [items],
        migrations: [Migration("create items", steps: [.createEntity(items)])]
    )

    static func row(_ name: String, score: Int64? = nil) -> StoreRow {
        StoreRow(id: UUID(), revision: 0, values: [.text(name), score.map { .integer($0) } ?? .null])
    }

    static func inserting(_ rows: [StoreRow]) -> ChangeBatch {
        ChangeBatch(entities: [EntityChanges(entity: items, inserts: rows)])
    }

    /// Two backends, each with its own `PostgresClient` (two processes), on one fresh schema.
    static func twoNodes() async throws -> (PostgresBackend, PostgresBackend) {
        let schema = PostgresTestDatabase.freshSchema()
        let first = PostgresBackend(configuration: try PostgresTestDatabase.configuration(schema: schema))
        let second = PostgresBackend(configuration: try PostgresTestDatabase.configuration(schema: schema))
        // Started together: the advisory lock makes one wait for the other's migration.
        async let firstMigrated: Void = first.migrate(to: model)
        async let secondMigrated: Void = second.migrate(to: model)
        _ = try await (firstMigrated, secondMigrated)
        return (first, second)
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func twoNodesUpdatingOneRecordTheLoserGetsATypedConflictAndNothingIsHalfWritten() async throws {
        let (first, second) = try await Self.twoNodes()
        let record = Self.row("shared", score: 1)
        let bystander = Self.row("bystander", score: 1)
        try await first.apply(Self.inserting([record, bystander]))
        let readByFirst = try #require(try await first.fetch(ids: [record.id], of: Self.items).first)
        let readBySecond = try await second.fetch(ids: [record.id, bystander.id], of: Self.items)
        var firstChange = readByFirst
        firstChange.values[0] = .text("first")
        try await first.apply(
            ChangeBatch(entities: [
                EntityChanges(entity: Self.items, updates: [RowUpdate(row: firstChange, changedColumns: [0])])
            ])
        )
        // The second node changes the same record from the revision it read, updates another record and inserts
        // one, in one batch.
        var updates: [RowUpdate] = []
        for var row in readBySecond {
            row.values[1] = .integer(99)
            updates.append(RowUpdate(row: row, changedColumns: [1]))
        }
        let newcomer = Self.row("newcomer")
        let error = await #expect(throws: StoreError.self) {
            try await second.apply(
                ChangeBatch(entities: [EntityChanges(entity: Self.items, inserts: [newcomer], updates: updates)])
            )
        }
        #expect(error?.code == .conflict)
        #expect(error?.records == [record.id])
        // Nothing of the losing batch was written, as either node sees it.
        for node in [first, second] {
            let stored = try await node.fetch(RowQuery(entity: Self.items)).sorted { $0.values[0] < $1.values[0] }
            #expect(stored.map(\.values) == [[.text("bystander"), .integer(1)], [.text("first"), .integer(1)]])
            #expect(stored.map(\.revision) == [1, 2])
        }
        try await first.close()
        try await second.close()
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func nodesStartingTogetherMigrateOneAfterTheOther() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let note = ColumnDescription(name: "note", type: .text, isNullable: true)
        let grown = EntityDescription(name: Self.items.name, columns: Self.items.columns + [note])
        let model = StoreModel(
            entities: [grown],
            migrations: Self.model.migrations + [
                Migration(
                    "add note",
                    steps: [.addColumn(entity: Self.items.name, column: note, defaultValue: .text("new"))]
                )
            ]
        )
        var nodes: [PostgresBackend] = []
        for _ in 0..<4 {
            nodes.append(PostgresBackend(configuration: try PostgresTestDatabase.configuration(schema: schema)))
        }
        // Without the advisory lock, concurrent `CREATE SCHEMA` / `CREATE TABLE` fail with duplicate errors.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes {
                group.addTask { try await node.migrate(to: model) }
            }
            try await group.waitForAll()
        }
        let row = StoreRow(id: UUID(), revision: 0, values: [.text("one"), .null, .text("note")])
        try await nodes[0].apply(ChangeBatch(entities: [EntityChanges(entity: grown, inserts: [row])]))
        for node in nodes {
            #expect(try await node.fetch(RowQuery(entity: grown)).map(\.values) == [row.values])
            // The store knows both migrations: an older model is refused, the current one opens again.
            let error = await #expect(throws: StoreError.self) { try await node.migrate(to: Self.model) }
            #expect(error?.code == .newerSchema)
            try await node.migrate(to: model)
            try await node.close()
        }
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func concurrentUpdatesOfOneRecordFromTwoNodesCommitExactlyOne() async throws {
        let (first, second) = try await Self.twoNodes()
        let records = (0..<20).map { Self.row("record \($0)", score: 0) }
        try await first.apply(Self.inserting(records))
        for record in records {
            let stored = StoreRow(id: record.id, revision: 1, values: record.values)
            let firstBatch = Self.setScore(1, of: stored)
            let secondBatch = Self.setScore(2, of: stored)
            async let firstResult = Self.outcome(of: firstBatch, on: first)
            async let secondResult = Self.outcome(of: secondBatch, on: second)
            let outcomes = await [firstResult, secondResult]
            #expect(outcomes.filter { $0 == nil }.count == 1, "exactly one node commits")
            #expect(outcomes.compactMap { $0 } == [StoreError.Code.conflict], "the other gets a conflict")
            let final = try #require(try await second.fetch(ids: [record.id], of: Self.items).first)
            #expect(final.revision == 2)
        }
        try await first.close()
        try await second.close()
    }

    /// A batch that sets the score of a record read at `row.revision`.
    static func setScore(_ score: Int64, of row: StoreRow) -> ChangeBatch {
        var changed = row
        changed.values[1] = .integer(score)
        return ChangeBatch(entities: [
            EntityChanges(entity: items, updates: [RowUpdate(row: changed, changedColumns: [1])])
        ])
    }

    /// `nil` when the batch commits, the kind of its error otherwise.
    static func outcome(of batch: ChangeBatch, on backend: PostgresBackend) async -> StoreError.Code? {
        do {
            try await backend.apply(batch)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aRefusedConnectionIsATypedErrorQuickly() async throws {
        // Nothing listens on port 1 of the loopback interface. "Quickly" means without waiting out the connect
        // timeout (retrying until it passes), so the timeout is long and the bound half of it: a loaded machine
        // cannot make a prompt failure look slow.
        var configuration = PostgresBackend.Configuration(host: "127.0.0.1", port: 1, username: "nobody")
        configuration.connectTimeout = .seconds(60)
        let backend = PostgresBackend(configuration: configuration)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: StoreError.self) { try await backend.migrate(to: Self.model) }
        #expect(error?.code == .cannotOpen)
        #expect(clock.now - start < .seconds(30))
        try await backend.close()
        // A closed backend refuses further work.
        let afterClose = await #expect(throws: StoreError.self) {
            try await backend.fetch(RowQuery(entity: Self.items))
        }
        #expect(afterClose?.code == .notInitialized)
    }

    @Test func aURLThatIsNotAPostgresURLIsATypedErrorThatDoesNotRepeatThePassword() throws {
        let error = #expect(throws: StoreError.self) {
            try PostgresBackend.Configuration(url: "mysql://user:secret@localhost/db")
        }
        #expect(error?.code == .cannotOpen)
        #expect(error.map { !"\($0)".contains("secret") } == true)
        let parsed = try PostgresBackend.Configuration(
            url: "postgresql://us%40er:p%3Ass@db.internal:6543/fleet?sslmode=disable&schema=v2"
        )
        #expect(parsed.host == "db.internal")
        #expect(parsed.port == 6543)
        #expect(parsed.username == "us@er")
        #expect(parsed.password == "p:ss")
        #expect(parsed.database == "fleet")
        #expect(parsed.schema == "v2")
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aWrongPasswordIsATypedError() async throws {
        var configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        configuration.password = "not the password"
        let backend = PostgresBackend(configuration: configuration)
        let error = await #expect(throws: StoreError.self) { try await backend.migrate(to: Self.model) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.reason?.contains("28P01") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error.map { !"\($0)".contains("not the password") } == true)
        try await backend.close()
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aMissingDatabaseIsATypedError() async throws {
        var configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        configuration.database = "no_such_database"
        let backend = PostgresBackend(configuration: configuration)
        let error = await #expect(throws: StoreError.self) { try await backend.migrate(to: Self.model) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.reason?.contains("3D000") == true)
        try await backend.close()
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func textPostgreSQLCannotHoldFailsTheWholeBatchWithATypedError() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        // PostgreSQL's text cannot hold U+0000 (SQLite's can): the batch fails as a whole.
        let error = await #expect(throws: StoreError.self) {
            try await backend.apply(Self.inserting([Self.row("fine"), Self.row("nul \u{0} inside")]))
        }
        #expect(error?.code == .backend)
        #expect(try await backend.fetch(RowQuery(entity: Self.items)).isEmpty)
    }

    /// With `COPY` (the default threshold) and with multi-row `INSERT`s only.
    @Test(
        .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason),
        arguments: [PostgresBackend.defaultCopyThreshold, nil]
    )
    func aLargeBatchIsWrittenInOneTransaction(copyThreshold: Int?) async throws {
        let backend = try PostgresTestDatabase.makeBackend(copyThreshold: copyThreshold)
        try await backend.migrate(to: Self.model)
        let rows = (0..<1_234).map { Self.row("row \($0)", score: Int64($0)) }
        try await backend.apply(Self.inserting(rows))
        #expect(try await backend.count(RowQuery(entity: Self.items), excluding: []) == rows.count)
        // A duplicate at the end of the batch rolls back everything before it.
        var more = (0..<1_100).map { Self.row("more \($0)") }
        more[1_099].id = rows[0].id
        let error = await #expect(throws: StoreError.self) { try await backend.apply(Self.inserting(more)) }
        #expect(error?.code == .duplicateRecord)
        #expect(try await backend.count(RowQuery(entity: Self.items), excluding: []) == rows.count)
    }

    /// Reading through a cursor (a fetch with a transform) checks the stored column types against the model.
    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aColumnStoredAsAnotherTypeIsACorruptValueWhenReadThroughACursor() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        try await backend.apply(Self.inserting([Self.row("one", score: 1), Self.row("two")]))
        let read: @Sendable (any StoreCursor) throws(StoreError) -> [String] = { cursor throws(StoreError) in
            var names: [String] = []
            while try cursor.next() != nil { names.append(cursor.text(at: 0)) }
            return names
        }
        #expect(try await backend.fetch(RowQuery(entity: Self.items), reading: read).sorted() == ["one", "two"])
        let table = "\"\(backend.schema)\".\"items\""
        try await backend.client.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ALTER COLUMN score TYPE text"))
        let error = await #expect(throws: StoreError.self) {
            try await backend.fetch(RowQuery(entity: Self.items), reading: read)
        }
        #expect(error?.code == .corruptValue)
        #expect(error?.detail.contains("score") == true)
    }

    /// With one connection and eight readers at once, seven wait: the pool figures count every lease, the time
    /// spent waiting, and end with nothing held and nothing waiting (the follower holds one connection while it
    /// follows, so it is turned off here).
    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func thePoolFiguresCountLeasesWaitsAndConnectionsHeld() async throws {
        var configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        configuration.maximumConnections = 1
        configuration.changeFeed = .thisProcess
        let backend = PostgresBackend(configuration: configuration)
        #expect(backend.poolStatus == PostgresPoolStatus(maximumConnections: 1))
        try await backend.migrate(to: Self.model)
        try await backend.apply(Self.inserting([Self.row("one")]))
        let before = backend.poolStatus
        #expect(before.connectionsInUse == 0 && before.waitingForConnection == 0)
        #expect(before.leasesTotal >= 2)

        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await backend.count(RowQuery(entity: Self.items), excluding: []) }
            }
            for try await count in group { #expect(count == 1) }
        }
        let after = backend.poolStatus
        #expect(after.leasesTotal == before.leasesTotal + 8)
        #expect(after.connectionsInUse == 0 && after.waitingForConnection == 0)
        #expect(after.failedLeasesTotal == 0)
        #expect(after.waitingTimeTotal > before.waitingTimeTotal)
        try await backend.close()
    }

    /// A backend that follows other processes holds one connection for its listener.
    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aFollowingBackendHoldsOneConnectionForItsListener() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let backend = PostgresBackend(configuration: try PostgresTestDatabase.configuration(schema: schema))
        try await backend.migrate(to: Self.model)
        let deadline = ContinuousClock.now + .seconds(10)
        while !backend.changeFeedStatus.isConnected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(backend.poolStatus.connectionsInUse == 1)
        try await backend.close()
        #expect(backend.poolStatus.connectionsInUse == 0)
    }
}

extension StoreValue {
    fileprivate static func < (lhs: StoreValue, rhs: StoreValue) -> Bool {
        StoreValue.order(lhs, rhs) == .ascending
    }
}
