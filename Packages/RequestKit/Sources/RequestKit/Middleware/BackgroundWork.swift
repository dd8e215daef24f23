import Synchronization

/// Work that middleware starts and that outlives the request it was started for, owned by a client so that it ends
/// when the client shuts down.
///
/// The cache's revalidation behind a `stale-while-revalidate` answer is such work: the caller has its answer, and
/// the refreshed one is stored for the requests after it. A step reaches its client's facility through
/// ``MiddlewareNext/backgroundWork`` and may keep the `next` it was given for the work:
///
/// ```swift
/// struct Prefetch: Middleware {
///     func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
///         let response = try await next(request)
///         next.backgroundWork.run {
///             var related = request
///             related.url = request.url.appending(path: "related")
///             _ = try? await next(related).body.collect(upTo: 1 << 20)
///         }
///         return response
///     }
/// }
/// ```
///
/// Each operation runs in a task of its own. ``shutdown()`` (called by ``RequestClient/shutdown()``) cancels the
/// operations still running, waits for them to end, and refuses new ones: ``run(_:)`` then returns `false` and the
/// step does the work in the request or not at all.
public final class BackgroundWork: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var lastID: UInt64 = 0
        var isShutDown = false
    }

    private let state = Mutex(State())

    /// Creates a facility with nothing running.
    public init() {}

    /// Starts `operation` in a task of its own, unless the facility was shut down.
    ///
    /// - Returns: whether the operation was started; `false` once ``shutdown()`` has begun.
    @discardableResult
    public func run(_ operation: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard !state.isShutDown else { return false }
            state.lastID += 1
            let id = state.lastID
            // Made while the lock is held, so the task's own removal (which takes the lock) always finds it.
            state.running[id] = Task {
                await operation()
                self.finished(id)
            }
            return true
        }
    }

    /// Waits until no operation is running, including any that the running ones start.
    public func waitUntilIdle() async {
        while true {
            let running = state.withLock { Array($0.running.values) }
            guard !running.isEmpty else { return }
            for task in running { await task.value }
        }
    }

    /// Refuses new operations, cancels the running ones and waits for them to end. Calling it again waits for
    /// whatever is still ending.
    public func shutdown() async {
        let running = state.withLock { state in
            state.isShutDown = true
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    private func finished(_ id: UInt64) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }
}
