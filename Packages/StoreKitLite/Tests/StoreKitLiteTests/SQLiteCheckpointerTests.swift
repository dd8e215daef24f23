import Foundation
import StoreKitLite
import StoreKitLiteTesting
import Testing

@testable import StoreKitLiteSQLite

/// The write-ahead log is copied back into the database file in the background, not inside a commit.
struct SQLiteCheckpointerTests {
    private let model = StoreModel(Vehicle.self, Driver.self)

    @Test func commitsPastAThousandPagesOfLogAreCheckpointedInTheBackgroundAndLoseNothing() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("checkpoints.sqlite")
        let backend = SQLiteBackend(path: path)
        let service = try await PersistenceService.open(model: model, backend: backend)
        let fileSize = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        let before = fileSize()
        // About 2 KiB per vehicle: 4,000 vehicles make some 2,000 pages of log in commits of 100.
        let make = String(repeating: "m", count: 2_000)
        for batch in 0..<40 {
            try await service.create(Vehicle.self, from: Array(0..<100), options: .saveAndPersist) { index, vehicle in
                vehicle.plate = "P-\(batch)-\(index)"
                vehicle.make = make
            }
        }
        await backend.checkpointsSettled()
        #expect(backend.completedCheckpoints >= 1, "the log passed 1,000 pages")
        #expect(fileSize() > before + 1_000 * 4_096, "the log's pages were copied into the database file")
        #expect(try await service.count(Vehicle.self) == 4_000)
        try await service.close()

        let reopened = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        #expect(try await reopened.count(Vehicle.self) == 4_000)
        try await reopened.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["checkpoints.sqlite"])
    }
}
