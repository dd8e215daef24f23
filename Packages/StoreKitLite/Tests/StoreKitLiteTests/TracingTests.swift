import Foundation
import InMemoryTracing
import ModelKit
import StoreKitLite
import Testing
import Tracing

/// The spans a traced service starts, recorded by `InMemoryTracer`.
struct TracingTests {
    /// The `db.system.name` each backend reports.
    private static func system(of kind: BackendKind) -> String {
        switch kind {
        case .memory: "storekitlite.memory"
        case .sqliteFile, .sqliteFileCallingThread, .sqliteMemory: "sqlite"
        case .postgres: "postgresql"
        }
    }

    /// An initialized root service on a fresh store of `kind`, tracing into `tracer`.
    private static func open(
        _ kind: BackendKind,
        tracer: InMemoryTracer,
        model: StoreModel = StoreModel(Vehicle.self, Driver.self),
        mergePolicy: MergePolicy = .error
    ) async throws -> (StoreFixture, PersistenceService) {
        let store = try StoreFixture(kind, model: model)
        let service = try await PersistenceService.open(
            model: model,
            backend: store.backend,
            mergePolicy: mergePolicy,
            tracer: tracer
        )
        return (store, service)
    }

    /// Every attribute of every finished span and span event, rendered as text.
    private static func recordedTexts(_ tracer: InMemoryTracer) -> [String] {
        var texts: [String] = []
        for span in tracer.finishedSpans {
            texts.append(span.operationName)
            span.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            for event in span.events {
                texts.append(event.name)
                event.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            }
            if let message = span.status?.message { texts.append(message) }
        }
        return texts
    }

    private static func string(_ span: FinishedInMemorySpan, _ key: String) -> String? {
        if case .string(let value)? = span.attributes.get(key) { return value }
        return nil
    }

    private static func int(_ span: FinishedInMemorySpan, _ key: String) -> Int64? {
        if case .int64(let value)? = span.attributes.get(key) { return value }
        return nil
    }

    private static func bool(_ span: FinishedInMemorySpan, _ key: String) -> Bool? {
        if case .bool(let value)? = span.attributes.get(key) { return value }
        return nil
    }

    // MARK: - Saves

    @Test(arguments: BackendKind.local)
    func aSaveUnderARequestSpanIsItsChildWithTheBatchAttributes(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let (store, service) = try await Self.open(kind, tracer: tracer)
        defer { withExtendedLifetime(store) {} }
        tracer.clearAll()
        try await tracer.withSpan("GET /vehicles", ofKind: .server) { _ in
            try await service.create(Vehicle.self, from: ["AB-1", "AB-2", "AB-3"], options: .saveAndPersist) {
                $1.plate = $0
            }
            let worker = service.makeChild()
            try await worker.create(Vehicle.self, options: .dontSave) { $0.plate = "CD-4" }
            try await worker.create(Driver.self, options: .dontSave) { $0.name = "Ada" }
            try await worker.saveAll(.saveAndPersist)
        }
        let request = try #require(tracer.finishedSpans.first { $0.operationName == "GET /vehicles" })
        let inserts = try #require(tracer.finishedSpans.first { $0.operationName == "BATCH INSERT vehicles" })
        #expect(inserts.parentSpanID == request.spanID)
        #expect(inserts.traceID == request.traceID)
        #expect(inserts.kind == .client)
        #expect(Self.string(inserts, "db.system.name") == Self.system(of: kind))
        #expect(Self.string(inserts, "db.operation.name") == "BATCH INSERT")
        #expect(Self.string(inserts, "db.collection.name") == "vehicles")
        #expect(Self.string(inserts, "db.query.summary") == "BATCH INSERT vehicles")
        #expect(Self.int(inserts, "db.operation.batch.size") == 3)
        #expect(Self.int(inserts, "storekitlite.records.vehicles") == 3)
        #expect(Self.int(inserts, "storekitlite.inserts") == 3)
        #expect(Self.string(inserts, "storekitlite.save.option") == "saveAndPersist")
        // SQLite files are opened with full durability unless told; the other stores leave it to their server.
        let durability: String? =
            switch kind {
            case .sqliteFile, .sqliteFileCallingThread: "full"
            default: nil
            }
        #expect(Self.string(inserts, "storekitlite.durability") == durability)
        #expect(inserts.status == nil)

        // A commit of two entities names no single collection.
        let mixed = try #require(tracer.finishedSpans.first { $0.operationName == "BATCH INSERT" })
        #expect(mixed.parentSpanID == request.spanID)
        #expect(Self.string(mixed, "db.collection.name") == nil)
        #expect(Self.string(mixed, "db.query.summary") == nil)
        #expect(Self.int(mixed, "db.operation.batch.size") == 2)
        #expect(Self.int(mixed, "storekitlite.records.vehicles") == 1)
        #expect(Self.int(mixed, "storekitlite.records.drivers") == 1)
        // Changes kept pending in memory start no span.
        #expect(tracer.finishedSpans.count == 3)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test(arguments: BackendKind.local, [MergePolicy.error, .oursWins])
    func aConflictIsAnEventOfTheSaveSpanAndFailsItUnderTheErrorPolicy(
        kind: BackendKind,
        policy: MergePolicy
    ) async throws {
        let tracer = InMemoryTracer()
        let (store, a) = try await Self.open(kind, tracer: tracer)
        defer { withExtendedLifetime(store) {} }
        let b = try await PersistenceService.open(
            model: store.model,
            backend: store.backend,
            mergePolicy: policy,
            tracer: tracer
        )
        let record = try await a.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "P0" }
        try await b.update(ids: [record.id]) { vehicles in
            vehicles[0].make = "B"
            return .dontSave
        }
        try await a.update(ids: [record.id]) { vehicles in
            vehicles[0].plate = "A"
            return .saveAndPersist
        }
        tracer.clearAll()
        let failure: StoreError?
        do {
            try await b.saveAll(.saveAndPersist)
            failure = nil
        } catch {
            failure = error
        }
        let save = try #require(tracer.finishedSpans.first { $0.operationName == "UPDATE vehicles" })
        let conflict = try #require(save.events.first { $0.name == "storekitlite.conflict" })
        #expect(conflict.attributes.get("storekitlite.conflict.records") == .int64(1))
        #expect(conflict.attributes.get("storekitlite.merge_policy") == .string("\(policy)"))
        if policy == .error {
            #expect(failure?.code == .conflict)
            #expect(Self.string(save, "error.type") == "conflict")
            #expect(save.status?.code == .error)
        } else {
            #expect(failure == nil)
            #expect(Self.string(save, "error.type") == nil)
            #expect(save.status == nil)
        }
        #expect(!Self.recordedTexts(tracer).contains { $0.contains(record.id.uuid.uuidString.lowercased()) })
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test(arguments: BackendKind.local)
    func aDuplicateValueFailsTheSaveSpan(kind: BackendKind) async throws {
        let entity = Vehicle.schema.entity
        let model = StoreModel(
            entities: [entity],
            migrations: [
                Migration(
                    "create vehicles",
                    steps: [
                        .createEntity(entity),
                        .createUniqueIndex(name: "vehicles_by_plate", entity: "vehicles", columns: ["plate"]),
                    ]
                )
            ]
        )
        let tracer = InMemoryTracer()
        let (store, service) = try await Self.open(kind, tracer: tracer, model: model)
        defer { withExtendedLifetime(store) {} }
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "SAME-PLATE" }
        await #expect(throws: StoreError.self) {
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "SAME-PLATE" }
        }
        let saves = tracer.finishedSpans.filter { $0.operationName == "INSERT vehicles" }
        #expect(saves.count == 2)
        #expect(Self.string(saves[1], "error.type") == "duplicateValue")
        #expect(saves[1].status?.code == .error)
        #expect(!Self.recordedTexts(tracer).contains { $0.contains("SAME-PLATE") })
    }

    // MARK: - Reads

    @Test(arguments: BackendKind.local)
    func aFetchDescribesThePredicateByShapeAndRecordsNoValue(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let (store, service) = try await Self.open(kind, tracer: tracer)
        defer { withExtendedLifetime(store) {} }
        let secret = "SECRET-4711"
        let record = try await service.create(Vehicle.self, options: .saveAndPersist) {
            $0.plate = secret
            $0.modelYear = 2019
        }
        tracer.clearAll()
        let query = Query<Vehicle>(\.plate == secret && \.modelYear > 1987).sorted(by: \.modelYear)
        let found = try await service.fetch(query)
        #expect(found.map(\.id) == [record.id])
        let byID = try await service.fetch(ids: [record.id])
        #expect(byID.count == 1)
        #expect(try await service.count(query) == 1)

        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["SELECT vehicles", "SELECT vehicles", "COUNT vehicles"])
        let fetch = spans[0]
        #expect(fetch.kind == .client)
        #expect(Self.string(fetch, "db.system.name") == Self.system(of: kind))
        #expect(Self.string(fetch, "db.operation.name") == "SELECT")
        #expect(Self.string(fetch, "db.collection.name") == "vehicles")
        #expect(Self.string(fetch, "db.query.summary") == "SELECT vehicles")
        #expect(Self.string(fetch, "storekitlite.query.predicate") == "plate = ? AND modelYear > ?")
        #expect(Self.bool(fetch, "storekitlite.query.sorted") == true)
        #expect(Self.bool(fetch, "storekitlite.query.limited") == false)
        #expect(Self.bool(fetch, "storekitlite.calling_thread") == false)
        #expect(Self.int(fetch, "db.response.returned_rows") == 1)
        #expect(Self.int(spans[1], "storekitlite.query.ids") == 1)
        #expect(Self.int(spans[1], "db.response.returned_rows") == 1)
        #expect(Self.string(spans[2], "storekitlite.query.predicate") == "plate = ? AND modelYear > ?")

        let texts = Self.recordedTexts(tracer)
        for value in [secret, "1987", "2019", record.id.uuid.uuidString, record.id.uuid.uuidString.lowercased()] {
            #expect(!texts.contains { $0.contains(value) }, "\(value) is recorded")
        }
    }

    @Test(arguments: BackendKind.local)
    func aReadOnTheCallingThreadIsTracedUnderTheCallersSpan(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let (store, service) = try await Self.open(kind, tracer: tracer)
        defer { withExtendedLifetime(store) {} }
        try await service.create(Vehicle.self, from: ["AB-1", "AB-2"], options: .saveAndPersist) { $1.plate = $0 }
        tracer.clearAll()

        // An async read that is short by construction runs on the calling thread.
        let page = try await tracer.withSpan("page") { _ in
            try await service.fetch(Query<Vehicle>().limit(10)) { $0.plate }
        }
        #expect(page.count == 2)
        let pageSpan = try #require(tracer.finishedSpans.first { $0.operationName == "page" })
        let read = try #require(tracer.finishedSpans.first { $0.operationName == "SELECT vehicles" })
        #expect(read.parentSpanID == pageSpan.spanID)
        #expect(Self.bool(read, "storekitlite.calling_thread") == true)
        #expect(Self.bool(read, "storekitlite.query.limited") == true)
        #expect(Self.string(read, "storekitlite.query.predicate") == nil)

        // A blocking form, on a thread of the caller's own, under the context the caller set there.
        tracer.clearAll()
        let parent = tracer.startSpan("job")
        let context = parent.context
        let counted = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            Thread {
                continuation.resume(
                    with: Result { () throws -> Int in
                        try ServiceContext.$current.withValue(context) {
                            try service.fetchAndWait(Query<Vehicle>()).count + service.countAndWait(Vehicle.self)
                        }
                    }
                )
            }.start()
        }
        parent.end()
        #expect(counted == 4)
        let job = try #require(tracer.finishedSpans.first { $0.operationName == "job" })
        let blocking = tracer.finishedSpans.filter { $0.operationName != "job" }
        #expect(blocking.map(\.operationName) == ["SELECT vehicles", "COUNT vehicles"])
        for span in blocking {
            #expect(span.parentSpanID == job.spanID)
            #expect(Self.bool(span, "storekitlite.calling_thread") == true)
        }
    }

    // MARK: - Migrations

    @Test(arguments: BackendKind.local)
    func eachMigrationAppliedAtInitializationIsASpanWithItsVersions(kind: BackendKind) async throws {
        let vehicles = Vehicle.schema.entity
        let drivers = Driver.schema.entity
        let model = StoreModel(
            entities: [vehicles, drivers],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(vehicles)]),
                Migration("create drivers", steps: [.createEntity(drivers)]),
                Migration(
                    "index plates",
                    steps: [.createIndex(name: "vehicles_by_plate", entity: "vehicles", columns: ["plate"])]
                ),
            ]
        )
        let tracer = InMemoryTracer()
        let store = try StoreFixture(kind, model: model)
        try await tracer.withSpan("startup") { _ in
            _ = try await PersistenceService.open(model: model, backend: store.backend, tracer: tracer)
        }
        let startup = try #require(tracer.finishedSpans.first { $0.operationName == "startup" })
        let migrate = try #require(tracer.finishedSpans.first { $0.operationName == "MIGRATE" })
        #expect(migrate.parentSpanID == startup.spanID)
        #expect(migrate.kind == .client)
        #expect(Self.string(migrate, "db.system.name") == Self.system(of: kind))
        #expect(Self.int(migrate, "storekitlite.schema.version") == 3)
        let steps = tracer.finishedSpans.filter { $0.parentSpanID == migrate.spanID }
        #expect(
            steps.map(\.operationName) == ["MIGRATE create vehicles", "MIGRATE create drivers", "MIGRATE index plates"]
        )
        #expect(steps.map { Self.int($0, "storekitlite.migration.from_version") } == [0, 1, 2])
        #expect(steps.map { Self.int($0, "storekitlite.migration.to_version") } == [1, 2, 3])
        #expect(steps.map { Self.string($0, "storekitlite.migration.name") } == model.migrations.map(\.name))

        // Opening the migrated store again applies nothing: one span, no children.
        tracer.clearAll()
        _ = try await PersistenceService.open(model: model, backend: store.backend, tracer: tracer)
        #expect(tracer.finishedSpans.map(\.operationName) == ["MIGRATE"])
    }

    @Test(arguments: BackendKind.local)
    func aFailedInitializationFailsTheMigrateSpan(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let store = try StoreFixture(kind)
        _ = try await PersistenceService.open(model: store.model, backend: store.backend, tracer: tracer)
        tracer.clearAll()
        // A model that does not know the store's migration: the store is newer.
        let other = StoreModel(
            entities: store.model.entities,
            migrations: [Migration("something else", steps: store.model.migrations[0].steps)]
        )
        await #expect(throws: StoreError.self) {
            _ = try await PersistenceService.open(model: other, backend: store.backend, tracer: tracer)
        }
        let migrate = try #require(tracer.finishedSpans.first { $0.operationName == "MIGRATE" })
        #expect(Self.string(migrate, "error.type") == "newerSchema")
        #expect(migrate.status?.code == .error)
    }

    // MARK: - Every span ends

    @Test(arguments: BackendKind.local)
    func noSpanIsLeftActiveAfterCancelledOperations(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let (store, service) = try await Self.open(kind, tracer: tracer)
        defer { withExtendedLifetime(store) {} }
        let work = Task {
            for round in 0..<200 {
                try await service.create(Vehicle.self, from: [round, round + 1], options: .saveAndPersist) {
                    $1.modelYear = $0
                }
                _ = try await service.fetch(Query<Vehicle>(\.modelYear > round))
                _ = try await service.count(Vehicle.self)
            }
        }
        let cancelledAtOnce = Task {
            _ = try await service.fetch(Vehicle.self)
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "late" }
        }
        cancelledAtOnce.cancel()
        try await Task.sleep(for: .milliseconds(5))
        work.cancel()
        _ = await work.result
        _ = await cancelledAtOnce.result
        #expect(tracer.activeSpans.isEmpty)
        #expect(!tracer.finishedSpans.isEmpty)
    }

    // MARK: - Turning it on and off

    @Test(arguments: BackendKind.local)
    func withoutATracerNothingIsRecorded(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let store = try StoreFixture(kind)
        try await withTracer(tracer) { () async throws in
            let service = try await PersistenceService.open(model: store.model, backend: store.backend, tracer: nil)
            #expect(service.tracer == nil)
            try await service.create(Vehicle.self, from: [1, 2], options: .saveAndPersist) { $1.modelYear = $0 }
            _ = try await service.fetch(Query<Vehicle>(\.modelYear > 0))
            _ = try await service.count(Vehicle.self)
        }
        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test(arguments: BackendKind.local)
    func theDefaultTracerIsTheOneInstalledWhenTheRootIsMade(kind: BackendKind) async throws {
        let tracer = InMemoryTracer()
        let store = try StoreFixture(kind)
        #expect(PersistenceService.installedTracer == nil)
        let service = try await withTracer(tracer) { () async throws in
            try await PersistenceService.open(model: store.model, backend: store.backend)
        }
        #expect(service.tracer != nil)
        #expect(service.makeChild().tracer != nil)
        tracer.clearAll()
        // Outside the scope the service keeps the tracer it was made with.
        _ = try await service.makeChild().fetch(Vehicle.self)
        #expect(tracer.finishedSpans.map(\.operationName) == ["SELECT vehicles"])
    }
}

extension TracingTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = TracingTests()

        @Test func aSaveUnderARequestSpanIsItsChildWithTheBatchAttributes() async throws {
            try await tests.aSaveUnderARequestSpanIsItsChildWithTheBatchAttributes(kind: .postgres)
        }

        @Test(arguments: [MergePolicy.error, .oursWins])
        func aConflictIsAnEventOfTheSaveSpanAndFailsItUnderTheErrorPolicy(policy: MergePolicy) async throws {
            try await tests.aConflictIsAnEventOfTheSaveSpanAndFailsItUnderTheErrorPolicy(
                kind: .postgres,
                policy: policy
            )
        }

        @Test func aDuplicateValueFailsTheSaveSpan() async throws {
            try await tests.aDuplicateValueFailsTheSaveSpan(kind: .postgres)
        }

        @Test func aFetchDescribesThePredicateByShapeAndRecordsNoValue() async throws {
            try await tests.aFetchDescribesThePredicateByShapeAndRecordsNoValue(kind: .postgres)
        }

        @Test func eachMigrationAppliedAtInitializationIsASpanWithItsVersions() async throws {
            try await tests.eachMigrationAppliedAtInitializationIsASpanWithItsVersions(kind: .postgres)
        }

        @Test func noSpanIsLeftActiveAfterCancelledOperations() async throws {
            try await tests.noSpanIsLeftActiveAfterCancelledOperations(kind: .postgres)
        }

        @Test func withoutATracerNothingIsRecorded() async throws {
            try await tests.withoutATracerNothingIsRecorded(kind: .postgres)
        }
    }
}
