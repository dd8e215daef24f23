import Foundation
import ModelKit
import StoreKitLite
import StoreKitLiteSQLite
import Testing

/// What only a file on disk can show: bad input, durability, reopening.
struct SQLiteStoreTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    @Test(arguments: [Data("this is not a database, just text".utf8), Data(repeating: 0xA5, count: 8192)])
    func aCorruptOrForeignFileIsATypedErrorAndIsLeftUntouched(contents: Data) async throws {
        let folder = TemporaryFolder()
        let path = folder.path("foreign.sqlite")
        try contents.write(to: URL(fileURLWithPath: path))
        let service = PersistenceService(model: model, backend: SQLiteBackend(path: path))
        let error = await #expect(throws: StoreError.self) { try await service.waitUntilInitialized() }
        #expect(error?.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["foreign.sqlite"])
    }

    @Test func closeCheckpointsTheLogAndLaterOperationsGetATypedError() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("closed.sqlite")
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "kept" }
        try await service.close()
        try await service.close()  // a second close does nothing
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["closed.sqlite"],
            "the write-ahead log is checkpointed into the database file and removed with the shared-memory file"
        )
        let error = await #expect(throws: StoreError.self) { try await service.count(Query<Vehicle>()) }
        #expect(error?.code == .notInitialized)
        let reopened = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        #expect(try await reopened.fetch(Query<Vehicle>()) { $0.plate } == ["kept"])
    }

    @Test func insertKeepsGivenIDsAndRefusesAStoredIDWithoutWritingTheBatch() async throws {
        let folder = TemporaryFolder()
        let service = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: folder.path("insert.sqlite"))
        )
        var first = Vehicle(id: ModelID())
        first.plate = "one"
        var second = Vehicle(id: ModelID())
        second.plate = "two"
        #expect(try await service.insert([first, second], options: .saveAndPersist) == 2)
        #expect(try await service.fetch(ids: [first.id]) == [first])
        var third = Vehicle(id: ModelID())
        third.plate = "three"
        let error = await #expect(throws: StoreError.self) {
            try await service.insert([third, first], options: .saveAndPersist)
        }
        #expect(error?.code == .duplicateRecord)
        // As with any failed save, the refused changes stay pending in the service until rolled back.
        service.rollback()
        #expect(try await service.count(Query<Vehicle>()) == 2, "nothing of the refused batch is written")
        let twice = await #expect(throws: StoreError.self) {
            try await service.makeChild().insert([third, third], options: .dontSave)
        }
        #expect(twice?.code == .duplicateRecord)
    }

    @Test func aDatabaseWithADamagedHeaderIsATypedErrorAndKeepsItsBytes() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("damaged.sqlite")
        do {
            let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "x" }
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(0..<16, with: Data(repeating: 0x42, count: 16))
        try bytes.write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        }
        #expect(error?.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aReadOnlyDirectoryIsATypedError() async throws {
        let folder = TemporaryFolder()
        // Root ignores directory permissions, so as root use a directory no one can create files in.
        let directory: String
        if geteuid() == 0 {
            directory = "/proc"
        } else {
            directory = folder.path("locked")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        }
        let backend = SQLiteBackend(path: directory + "/store.sqlite")
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: model, backend: backend)
        }
        #expect(error?.code == .cannotOpen)
    }

    @Test func aFullStoreIsATypedErrorAndLosesNothingAlreadyStored() async throws {
        let folder = TemporaryFolder()
        let backend = SQLiteBackend(path: folder.path("small.sqlite"), maximumSizeInBytes: 64 * 1024)
        let service = try await PersistenceService.open(model: model, backend: backend)
        let kept = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "kept" }
        let error = await #expect(throws: StoreError.self) {
            try await service.create(Vehicle.self, from: 0..<200, options: .saveAndPersist) { index, vehicle in
                vehicle.plate = String(repeating: "\(index)", count: 1000)
            }
        }
        #expect(error?.code == .diskFull)
        #expect(service.hasChanges)
        service.rollback()
        let reopened = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: folder.path("small.sqlite"))
        )
        #expect(try await reopened.fetch(Query<Vehicle>()) == [kept])
    }

    @Test func aStoreFromANewerSchemaIsRefusedAndItsDataSurvives() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("versions.sqlite")
        let note = ColumnDescription(name: "note", type: .text, isNullable: true)
        let vehicles = Vehicle.schema.entity
        let newer = StoreModel(
            entities: [EntityDescription(name: "vehicles", columns: vehicles.columns + [note])],
            migrations: [
                Migration("create vehicles", steps: [.createEntity(vehicles)]),
                Migration("add note", steps: [.addColumn(entity: "vehicles", column: note, defaultValue: .null)]),
            ]
        )
        let older = StoreModel(
            records: [Vehicle.self],
            migrations: [Migration("create vehicles", steps: [.createEntity(vehicles)])]
        )
        do {
            let service = try await PersistenceService.open(model: older, backend: SQLiteBackend(path: path))
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "old" }
        }
        do {
            _ = try await PersistenceService.open(model: newer, backend: SQLiteBackend(path: path))
        }
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: older, backend: SQLiteBackend(path: path))
        }
        #expect(error?.code == .newerSchema)
        let backend = SQLiteBackend(path: path)
        try await backend.migrate(to: newer)
        let rows = try await backend.fetch(RowQuery(entity: newer.entities[0]))
        #expect(rows.map(\.values[0]) == [.text("old")])
    }

    @Test(arguments: [SQLiteBackend.Durability.full, .normal])
    func theDurabilityChosenAtOpenIsWhatSQLiteUses(durability: SQLiteBackend.Durability) async throws {
        let folder = TemporaryFolder()
        let backend = SQLiteBackend(path: folder.path("durable.sqlite"), durability: durability)
        _ = try await PersistenceService.open(model: model, backend: backend)
        #expect(try await backend.effectiveDurability() == durability)
    }

    @Test func aCommitThatReturnedIsInTheFilesAsACrashWouldLeaveThem() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("crash.sqlite")
        let backend = SQLiteBackend(path: path, durability: .full)
        let service = try await PersistenceService.open(model: model, backend: backend)
        let record = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "durable" }
        // Copy the files while the store is still open (no checkpoint, no close), as after a crash.
        let copy = TemporaryFolder()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy.path("crash.sqlite") + suffix)
        }
        let recovered = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: copy.path("crash.sqlite"))
        )
        #expect(try await recovered.fetch(ids: [record.id]) == [record])
        _ = service
    }

    @Test func everyValueTypeRoundTripsThroughAFile() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("types.sqlite")
        let created: Vehicle
        do {
            let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
            created = try await service.create(Vehicle.self, options: .saveAndPersist) {
                $0.plate = "Ünïcødé 🚗"
                $0.make = ""
                $0.modelYear = Int.min
                $0.mileage = 123.456
                $0.inService = false
            }
        }
        let reopened = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        #expect(try await reopened.fetch(ids: [created.id]) == [created])
    }
}
