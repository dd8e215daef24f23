import Foundation
import ModelKit
import StoreKitLite
import StoreKitLiteSQLite
import Testing

/// A store file that is refused keeps every byte, and no file appears beside it; a store can be opened read-only.
struct SQLiteFileSafetyTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    /// The model with one more migration than `model`: a newer version of the app.
    private var newerModel: StoreModel {
        let odometer = ColumnDescription(name: "odometer", type: .real, isNullable: true)
        return StoreModel(
            entities: [
                EntityDescription(name: "vehicles", columns: Vehicle.schema.entity.columns + [odometer]),
                Driver.schema.entity,
            ],
            migrations: model.migrations + [
                Migration(
                    "add odometer",
                    steps: [.addColumn(entity: "vehicles", column: odometer, defaultValue: .null)]
                )
            ]
        )
    }

    /// A closed store at `path` holding one vehicle.
    private func makeStore(at path: String, model: StoreModel) async throws -> Vehicle {
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        let vehicle = try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "kept" }
        try await service.close()
        return vehicle
    }

    private func listing(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    @Test func aStoreFromANewerSchemaIsRefusedWithoutChangingAByteOrAddingAFile() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("newer.sqlite")
        _ = try await makeStore(at: path, model: newerModel)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try listing(folder) == ["newer.sqlite"])
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        }
        #expect(error?.code == .newerSchema)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try listing(folder) == ["newer.sqlite"])
    }

    @Test func anSQLiteHeaderFollowedByGarbageIsNotADatabaseAndKeepsItsBytes() async throws {
        let folder = TemporaryFolder()
        let real = folder.path("real.sqlite")
        _ = try await makeStore(at: real, model: model)
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: real)).prefix(100) + garbage
        let path = folder.path("garbage.sqlite")
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        }
        #expect(error?.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try listing(folder) == ["garbage.sqlite", "real.sqlite"])
    }

    @Test func aReadOnlyStoreReadsEverythingAndRefusesWritesWithoutTouchingTheFile() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("shared.sqlite")
        let vehicle = try await makeStore(at: path, model: model)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, access: .readOnly)
        )
        #expect(try await reader.fetch(Query<Vehicle>()) == [vehicle])
        #expect(try await reader.count(Query<Vehicle>()) == 1)
        let error = await #expect(throws: StoreError.self) {
            try await reader.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "refused" }
        }
        #expect(error?.code == .readOnly)
        try await reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aReadOnlyOpenOfAStoreThatNeedsMigrationsOrDoesNotExistIsATypedError() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("older.sqlite")
        _ = try await makeStore(at: path, model: model)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let needsMigration = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(model: newerModel, backend: SQLiteBackend(path: path, access: .readOnly))
        }
        #expect(needsMigration?.code == .readOnly)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let missing = await #expect(throws: StoreError.self) {
            try await PersistenceService.open(
                model: model,
                backend: SQLiteBackend(path: folder.path("missing.sqlite"), access: .readOnly)
            )
        }
        #expect(missing?.code == .cannotOpen)
        #expect(try listing(folder) == ["older.sqlite"])
    }

    @Test(.enabled(if: geteuid() != 0, "root ignores file permissions, so a directory cannot be read-only to it"))
    func aStoreInAReadOnlyDirectoryCanBeRead() async throws {
        let folder = TemporaryFolder()
        let directory = folder.path("locked")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        let vehicle = try await makeStore(at: path, model: model)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory) }
        let reader = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, access: .readOnly)
        )
        #expect(try await reader.fetch(Query<Vehicle>()) == [vehicle])
        try await reader.close()
    }
}
