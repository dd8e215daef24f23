import Foundation
import ModelKitTesting
import ProcessTesting
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// `PersistenceService.storeVersion()`: what a caller that keeps what it read checks before using it again.
struct StoreVersionTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    @Test func onAFileTheVersionChangesWithEveryCommitOfThisOrAnotherConnectionAndOnlyThen() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("versions.sqlite")
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        // Another process on the same file: a backend with connections of its own.
        let other = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))

        let first = try #require(try service.storeVersion())
        _ = try await service.count(Vehicle.self)
        #expect(try service.storeVersion() == first, "a read changes nothing")

        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "own" }
        let afterOwn = try #require(try service.storeVersion())
        #expect(afterOwn != first, "this service's own commit")

        try await other.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "other" }
        let afterOther = try #require(try service.storeVersion())
        #expect(afterOther != afterOwn && afterOther != first, "another connection's commit")
        #expect(try service.storeVersion() == afterOther)
        try await other.close()
        try await service.close()
    }

    /// SQLite's command-line shell, when installed: a writer in another process that nobody on the team wrote.
    private static let shell = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        .enabled(
            if: shell != nil,
            "SQLite's command-line shell is not installed (Debian's sqlite3 package; Scripts/install-deps installs it)"
        )
    )
    func anotherProcessChangesTheVersionWithEveryCommitAndACheckpointNeverTakesItBack() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("shell.sqlite")
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "own" }
        let first = try #require(try service.storeVersion())
        #expect(try service.storeVersion() == first)

        // (Another process's first read may rewrite the log's index header, as a recovery does; SQLite's own
        // `data_version` then changes too, so no test here says that a read by another process changes nothing.)
        var seen = [first]
        for statement in [
            "CREATE TABLE outside (value);",
            "INSERT INTO outside VALUES (1);",
            "BEGIN; INSERT INTO outside VALUES (2); INSERT INTO outside VALUES (3); COMMIT;",
            // The log is emptied and restarts with new salts: the same frame count comes round again.
            "PRAGMA wal_checkpoint(TRUNCATE);",
            "INSERT INTO outside VALUES (4);",
            "INSERT INTO outside VALUES (5);",
        ] {
            try Self.runShell(path, statement)
            let version = try #require(try service.storeVersion())
            if statement.hasPrefix("PRAGMA") {
                // A checkpoint changes no content: the version may stay or change, never go back.
                #expect(version == seen.last || !seen.contains(version), "\(statement)")
            } else {
                #expect(!seen.contains(version), "another process's commit: \(statement)")
            }
            #expect(try service.storeVersion() == version, "nothing committed since: \(statement)")
            seen.append(version)
        }

        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "own again" }
        #expect(try !seen.contains(#require(try service.storeVersion())), "this service's commit after them")
        try await service.close()
    }

    /// Runs `sql` on the file at `path` in SQLite's command-line shell, as a process of its own.
    private static func runShell(_ path: String, _ sql: String) throws {
        let result = try ChildProcess.run(try #require(shell), arguments: ["-bail", path, sql], error: .collect)
        try #require(result.termination.succeeded, "sqlite3 \(sql): \(result.termination), \(result.errorText)")
    }

    @Test func theVersionIsNilWhileTheServiceOrAnAncestorHasUnsavedChanges() async throws {
        let folder = TemporaryFolder()
        let root = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: folder.path("pending.sqlite"))
        )
        let child = root.makeChild()
        let sibling = root.makeChild()
        let before = try #require(try child.storeVersion())

        try await child.create(Vehicle.self, options: .dontSave) { $0.plate = "pending" }
        #expect(try child.storeVersion() == nil, "its reads see a record the store does not hold")
        #expect(try sibling.storeVersion() == before, "a sibling's pending changes are not its reads")
        child.rollback()
        #expect(try child.storeVersion() == before)

        try await root.create(Vehicle.self, options: .dontSave) { $0.plate = "in the root" }
        #expect(try child.storeVersion() == nil, "an ancestor's pending changes are read too")
        try await root.saveAll(.saveAndPersist)
        let saved = try #require(try child.storeVersion())
        #expect(saved != before)
        try await root.close()
    }

    @Test func aClosedStoreIsATypedErrorAndAnInMemorySQLiteStoreCountsItsCommits() async throws {
        let folder = TemporaryFolder()
        let service = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: folder.path("closed.sqlite"))
        )
        _ = try service.storeVersion()
        try await service.close()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["closed.sqlite"],
            "the connection that reads the version is closed before the last one, so the log files go"
        )
        let error = #expect(throws: StoreError.self) { try service.storeVersion() }
        #expect(error?.code == .notInitialized)

        let sqliteMemory = try await PersistenceService.open(model: model, backend: SQLiteBackend(location: .memory))
        let before = try sqliteMemory.storeVersion()
        #expect(before != nil)
        #expect(try sqliteMemory.storeVersion() == before)
        try await sqliteMemory.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "new" }
        #expect(try sqliteMemory.storeVersion() != before)
    }

    @Test func theInMemoryBackendCountsTheCommitsOfEveryServiceSharingIt() async throws {
        let backend = InMemoryBackend()
        let first = try await PersistenceService.open(model: model, backend: backend)
        let second = try await PersistenceService.open(model: model, backend: backend)
        let before = try #require(try first.storeVersion())
        try await second.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "other" }
        let after = try #require(try first.storeVersion())
        #expect(after != before)
        #expect(try first.storeVersion() == after)
    }
}
