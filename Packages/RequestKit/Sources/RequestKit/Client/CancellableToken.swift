import Synchronization

/// A handle to a request started with callbacks: cancel it, or ask whether it finished.
///
/// Cancelling stops the transfer; the failure callback then runs with ``RequestKitError/Code/cancelled``, unless
/// the request had already finished.
public final class CancellableToken: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var cancelled = false
        var finished = false
    }
    private let state = Mutex(State())

    init() {}

    /// Cancels the request. Does nothing once it has finished.
    public func cancel() {
        let task: Task<Void, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// Whether ``cancel()`` was called before the request finished.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the request has finished and its callback has been scheduled.
    public var isFinished: Bool { state.withLock { $0.finished } }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    func markFinished() {
        state.withLock { $0.finished = true }
    }
}
