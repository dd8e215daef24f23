import Dispatch
import Foundation
import ModelKit
import ModelKitTesting
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// A task executor with one thread: while a job blocks that thread, no other task on the executor runs. It makes
/// "does a slow store access hold the caller's executor?" an exact question on a machine of any size.
final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: the only stored property is a serial DispatchQueue, which is thread-safe.
    private let queue = DispatchQueue(label: "one-thread-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Parks whoever decodes a value stored with its token, until released: a read whose work takes as long as the
/// test likes.
enum ReadGate {
    private static let gates = LockedValue<
        [Int: (entered: AsyncStream<Void>.Continuation, release: DispatchSemaphore)]
    >(
        [:])

    /// A token to store; decoding it signals `entered` and waits for `release`.
    static func arm() -> (token: Int, entered: AsyncStream<Void>, release: DispatchSemaphore) {
        let (entered, continuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let token = Int.random(in: 1...Int.max)
        gates.withLock { $0[token] = (continuation, release) }
        return (token, entered, release)
    }

    static func pass(_ token: Int) {
        guard let gate = gates.withLock({ $0.removeValue(forKey: token) }) else { return }
        gate.entered.yield()
        gate.release.wait()
    }
}

/// A number whose decoding passes through ``ReadGate``.
struct GatedNumber: StoreValueConvertible, Equatable {
    var value: Int
    static var columnType: ColumnType { .integer }
    var storeValue: StoreValue { .integer(Int64(value)) }

    init(_ value: Int) {
        self.value = value
    }

    init?(storeValue: StoreValue) {
        guard case .integer(let stored) = storeValue else { return nil }
        value = Int(stored)
        ReadGate.pass(value)
    }
}

struct Meter: Record, Equatable {
    var id: ModelID<Meter>
    var reading = GatedNumber(0)

    init(id: ModelID<Meter>) {
        self.id = id
    }

    static let schema = RecordSchema<Meter>("meters", Column("reading", \.reading))
}

/// What runs where: with the default execution, a commit stalled in its transaction (as in a slow `fsync`) or a
/// read that takes long does not hold the executor its caller runs on; with `.callingThread` it does, which is
/// that option's documented trade-off.
struct ExecutionModelTests {
    private let executions: [SQLiteBackend.Execution] = [.suspending, .callingThread]

    /// Runs `unrelated` on `executor` while a store access started on it is parked, and tells whether it ran
    /// before the access was let go. Without the hold, `release` is signalled a second after `unrelated` is
    /// started, so a caller whose thread is blocked gets it back.
    private func runsWhileParked(
        on executor: OneThreadExecutor,
        holds: Bool,
        release: DispatchSemaphore
    ) async -> Bool {
        let released = LockedValue(false)
        let unrelated = Task(executorPreference: executor) { () -> Bool in
            !released.withLock { $0 }
        }
        if !holds {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                released.withLock { $0 = true }
                release.signal()
            }
        }
        let ranFirst = await unrelated.value
        if holds {
            released.withLock { $0 = true }
            release.signal()
        }
        return ranFirst
    }

    @Test(.timeLimit(.minutes(1)), arguments: [SQLiteBackend.Execution.suspending, .callingThread])
    func aCommitStalledInItsTransactionHoldsTheCallersExecutorOnlyOnTheCallingThread(
        execution: SQLiteBackend.Execution
    ) async throws {
        let folder = TemporaryFolder()
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        // The backend logs "committing batch" inside the write transaction, just before it commits.
        let recorder = LogRecorder { entry in
            guard entry.message == "committing batch" else { return }
            enter.yield()
            release.wait()
        }
        let service = try await PersistenceService.open(
            model: StoreModel(Vehicle.self),
            backend: SQLiteBackend(path: folder.path("store.sqlite"), execution: execution, logger: recorder.logger)
        )
        let executor = OneThreadExecutor()
        let commit = Task(executorPreference: executor) {
            try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "stalled" }
        }
        for await _ in entered { break }
        let ranFirst = await runsWhileParked(on: executor, holds: execution == .suspending, release: release)
        #expect(ranFirst == (execution == .suspending))
        #expect(try await commit.value.plate == "stalled")
        #expect(try await service.count(Vehicle.self) == 1)
    }

    /// An unbounded fetch suspends (it runs on GRDB's reader pool), whatever the execution option; a read that is
    /// short by construction (here, one with a limit) runs on the calling thread, whatever the option.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [SQLiteBackend.Execution.suspending, .callingThread],
        [false, true]
    )
    func onlyAShortReadHoldsTheCallersExecutor(execution: SQLiteBackend.Execution, limited: Bool) async throws {
        let folder = TemporaryFolder()
        let service = try await PersistenceService.open(
            model: StoreModel(Meter.self),
            backend: SQLiteBackend(path: folder.path("store.sqlite"), execution: execution)
        )
        let gate = ReadGate.arm()
        let stored = try await service.create(Meter.self, options: .saveAndPersist) {
            $0.reading = GatedNumber(gate.token)
        }
        let executor = OneThreadExecutor()
        let query = limited ? Query<Meter>().limit(10) : Query<Meter>()
        let read = Task(executorPreference: executor) { try await service.fetch(query) }
        for await _ in gate.entered { break }
        let ranFirst = await runsWhileParked(on: executor, holds: !limited, release: gate.release)
        #expect(ranFirst == !limited)
        #expect(try await read.value == [stored])
    }
}
