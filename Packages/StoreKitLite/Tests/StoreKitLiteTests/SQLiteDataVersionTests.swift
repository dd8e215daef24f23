import Foundation
import GRDBSQLite
import StoreKitLite
import StoreKitLiteTesting
import Testing

@testable import StoreKitLiteSQLite

/// The reader behind `storeVersion()` on SQLite: the shared index's header, read as SQLite's own readers do.
struct SQLiteDataVersionTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    @Test func readingsComeFromTheSharedIndexAndChangeWithEveryCommitOfAnotherConnection() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("index.sqlite")
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        let reader = try SQLiteDataVersion(path: path, busyTimeoutMilliseconds: 1_000)
        let first = try reader.read()
        #expect(reader.readsSharedIndex, "a store in WAL mode has a shared index to read")
        #expect(try reader.read() == first)

        var last = first
        for plate in ["A", "B", "C"] {
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = plate }
            let next = try reader.read()
            #expect(next > last, "a commit after the last reading")
            #expect(try reader.read() == next, "no commit since")
            last = next
        }
        _ = try await service.count(Vehicle.self)
        #expect(try reader.read() == last, "a read of this process commits nothing")
        try await service.close()
    }

    @Test func aFileWithoutASharedIndexIsReadThroughDataVersion() throws {
        let folder = TemporaryFolder()
        let path = folder.path("rollback.sqlite")
        try FileManager.default.createDirectory(atPath: folder.url.path, withIntermediateDirectories: true)
        // A file in rollback-journal mode, as another program may leave one: it has no shared index to map.
        var opened: OpaquePointer?
        #expect(sqlite3_open(path, &opened) == SQLITE_OK)
        let writer = try #require(opened)
        defer { sqlite3_close(writer) }
        #expect(sqlite3_exec(writer, "PRAGMA journal_mode = DELETE; CREATE TABLE t (x);", nil, nil, nil) == SQLITE_OK)

        let reader = try SQLiteDataVersion(path: path, busyTimeoutMilliseconds: 1_000)
        let first = try reader.read()
        #expect(!reader.readsSharedIndex)
        #expect(try reader.read() == first)
        #expect(sqlite3_exec(writer, "INSERT INTO t VALUES (1);", nil, nil, nil) == SQLITE_OK)
        let second = try reader.read()
        #expect(second > first, "another connection's commit")
        #expect(try reader.read() == second)
    }
}
