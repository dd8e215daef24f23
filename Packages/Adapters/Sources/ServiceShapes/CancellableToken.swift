import Dispatch
import Synchronization

/// A handle to an operation started with a callback: cancel it, or ask whether it is over.
///
/// Every callback form in this module returns one. The completion of the operation runs exactly once:
///
/// - with the operation's outcome, when the operation finished before ``cancel()`` was called;
/// - with a cancellation error (`RequestKitError.Code.cancelled` for requests,
///   `StoreError.Code.cancelled` for stores), when ``cancel()`` came first. The operation's task is
///   cancelled, and the completion runs once that task has stopped, so nothing of the operation is still running
///   when it does. Whatever the operation returns after the cancel is discarded.
///
/// Cancelling after the outcome was decided does nothing. A store write that was already under way when it was
/// cancelled may still have reached the store (the store does not stop halfway through a commit): the
/// cancellation error says that the caller stopped waiting, not that nothing happened.
public final class CancellableToken: Sendable {
    private let state = Mutex(CallbackState())

    init() {}

    /// Cancels the operation. Does nothing once its outcome is decided.
    public func cancel() {
        let task = state.withLock { $0.cancel() }
        task?.cancel()
    }

    /// Whether ``cancel()`` came before the operation finished (the completion then gets a cancellation error).
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Whether the outcome is decided: the completion is then queued on its completion queue, or has run.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { $0.attach(task) }
        if cancelNow { task.cancel() }
    }

    /// Decides the outcome: `true` when the operation's own result is delivered, `false` when the token was
    /// cancelled first and the cancellation error is delivered instead.
    func finish() -> Bool {
        state.withLock { $0.finish() }
    }
}

/// The token's state machine: running, then either cancelled or finished; `finish()` always ends it.
struct CallbackState {
    private enum Phase {
        case running
        case cancelled
        case finished
    }

    private var phase = Phase.running
    private var task: Task<Void, Never>?
    private var delivered = false

    var isCancelled: Bool { phase == .cancelled }
    var isFinished: Bool { delivered }

    /// Moves to cancelled while running and returns the task to cancel (outside the lock).
    mutating func cancel() -> Task<Void, Never>? {
        guard phase == .running else { return nil }
        phase = .cancelled
        return task
    }

    /// Keeps the task; returns whether the token was cancelled before the task was known.
    mutating func attach(_ task: Task<Void, Never>) -> Bool {
        self.task = task
        return phase == .cancelled
    }

    /// Called once by the task when the work is over; returns whether its own result is delivered.
    mutating func finish() -> Bool {
        delivered = true
        task = nil
        guard phase == .running else { return false }
        phase = .finished
        return true
    }
}

/// Runs callback forms: one task per call, its outcome delivered once on the completion queue.
enum CallbackRunner {
    /// Starts `work` in a task tied to a new token and delivers its outcome, or `cancellation()` when the token
    /// was cancelled first, on `completionQueue`.
    static func start<Value: Sendable, Failure: Error>(
        completionQueue: DispatchQueue,
        cancellation: @escaping @Sendable () -> Failure,
        completion: @escaping @Sendable (Result<Value, Failure>) -> Void,
        work: @escaping @Sendable () async throws(Failure) -> Value
    ) -> CancellableToken {
        let token = CancellableToken()
        let task = Task {
            let result: Result<Value, Failure>
            do throws(Failure) {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            let outcome = token.finish() ? result : .failure(cancellation())
            completionQueue.async { completion(outcome) }
        }
        token.attach(task)
        return token
    }

    /// Delivers an outcome that is already known, on `completionQueue`, with a token that is already finished.
    static func deliver<Value: Sendable, Failure: Error>(
        _ result: Result<Value, Failure>,
        completionQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Value, Failure>) -> Void
    ) -> CancellableToken {
        let token = CancellableToken()
        _ = token.finish()
        completionQueue.async { completion(result) }
        return token
    }
}
