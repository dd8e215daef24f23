import Dispatch
import Foundation
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// Reads are never blocked by a long write: a commit is held open inside its SQLite write transaction (its rows
/// written, not yet committed) while other services read the same file.
struct ConcurrentReadTests {
    @Test(.timeLimit(.minutes(1)))
    func callingThreadReadsFromManyTasksReadWholeCommitsAndCloseWithTheStore() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let service = try await PersistenceService.open(
            model: StoreModel(Vehicle.self),
            backend: SQLiteBackend(path: path, execution: .callingThread)
        )
        try await service.create(Vehicle.self, from: 0..<50, options: .saveAndPersist) { $1.plate = "P\($0)" }
        // Eight tasks read on their own threads while a ninth commits batches of ten: every read sees whole batches.
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var counts: [Int] = []
                    for _ in 0..<40 { counts.append(try await service.fetch(Query<Vehicle>()) { $0.plate }.count) }
                    return counts
                }
            }
            group.addTask {
                for batch in 0..<10 {
                    try await service.create(Vehicle.self, from: 0..<10, options: .saveAndPersist) {
                        $1.plate = "B\(batch)-\($0)"
                    }
                }
                return []
            }
            for try await counts in group {
                for count in counts { #expect(count >= 50 && count <= 150 && count.isMultiple(of: 10), "\(count)") }
            }
        }
        #expect(try await service.count(Vehicle.self) == 150)
        // The readers close with the store, before its writer: the store is one file again.
        try await service.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test(.timeLimit(.minutes(1)), arguments: [SQLiteBackend.Execution.suspending, .callingThread])
    func readsOnOtherServicesCompleteWhileAWriteTransactionIsHeldOpen(
        execution: SQLiteBackend.Execution
    )
        async throws
    {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let model = StoreModel(Vehicle.self)
        // The writer's backend logs "committing batch" inside the write transaction, after its statements ran;
        // the recorder parks the writer there until the test releases it.
        let (inTransaction, reached) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let recorder = LogRecorder { entry in
            guard entry.message == "committing batch" else { return }
            reached.yield()
            release.wait()
        }
        let reader = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, execution: execution)
        )
        try await reader.create(Vehicle.self, from: 0..<3, options: .saveAndPersist) { $1.plate = "R\($0)" }
        let writer = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, logger: recorder.logger)
        )
        let otherReader = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, execution: execution)
        )

        let write = Task {
            try await writer.create(Vehicle.self, from: 0..<1_000, options: .saveAndPersist) { $1.plate = "W\($0)" }
        }
        for await _ in inTransaction { break }

        // The write transaction is open now and stays open until `release` is signalled below.
        let counted: Int
        let fetched: [String]
        let otherCounted: Int
        do {
            defer { release.signal() }
            counted = try await reader.count(Query<Vehicle>())
            fetched = try await reader.fetch(Query<Vehicle>().sorted(by: \.plate)) { $0.plate }
            otherCounted = try await otherReader.count(Query<Vehicle>(.hasPrefix(\.plate, "W")))
        }
        #expect(counted == 3)
        #expect(fetched == ["R0", "R1", "R2"])
        #expect(otherCounted == 0)

        #expect(try await write.value.count == 1_000)
        #expect(try await reader.count(Query<Vehicle>()) == 1_003)
        #expect(try await otherReader.count(Query<Vehicle>(.hasPrefix(\.plate, "W"))) == 1_000)
    }

    /// The calling-thread commit never waits for the lock on the calling thread: it falls back to the writer queue.
    @Test(.timeLimit(.minutes(1)))
    func aSmallCommitWaitsForAnotherConnectionsWriteLockInsteadOfFailing() async throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let model = StoreModel(Vehicle.self)
        let (inTransaction, reached) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holder = LogRecorder { entry in
            guard entry.message == "committing batch" else { return }
            reached.yield()
            release.wait()
        }
        let (foundBusy, busy) = AsyncStream<Void>.makeStream()
        let small = LogRecorder { entry in
            if entry.message.hasPrefix("write lock held by another connection") { busy.yield() }
        }
        let writer = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, logger: holder.logger)
        )
        let smallWriter = try await PersistenceService.open(
            model: model,
            backend: SQLiteBackend(path: path, execution: .callingThread, logger: small.logger)
        )
        let write = Task {
            try await writer.create(Vehicle.self, from: 0..<1_000, options: .saveAndPersist) { $1.plate = "W\($0)" }
        }
        for await _ in inTransaction { break }

        // A single-record commit finds the lock taken, goes through its writer queue and waits there.
        let single = Task {
            try await smallWriter.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "single" }
        }
        for await _ in foundBusy { break }
        release.signal()

        #expect(try await write.value.count == 1_000)
        #expect(try await single.value.plate == "single")
        #expect(try await smallWriter.count(Query<Vehicle>()) == 1_001)
    }
}
