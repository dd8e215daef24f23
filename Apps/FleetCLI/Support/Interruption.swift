import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What asks a long-running command (`fleet download`) to stop and say what it kept, as Ctrl-C does.
///
/// ``CommandContext/process()`` uses ``sigint()``: SIGINT is caught only while such a command runs, so Ctrl-C ends
/// every other command as usual. Code that runs commands in-process makes one with ``init()`` and calls
/// ``interrupt()``.
public final class Interruption: Sendable {
    private struct State {
        var interrupted = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let catchesSIGINT: Bool
    private let state = Mutex(State())

    /// An interruption that comes only from ``interrupt()``.
    public init() {
        catchesSIGINT = false
    }

    private init(catchesSIGINT: Bool) {
        self.catchesSIGINT = catchesSIGINT
    }

    /// An interruption that comes from SIGINT (Ctrl-C) while a command watches for it, or from ``interrupt()``.
    public static func sigint() -> Interruption {
        Interruption(catchesSIGINT: true)
    }

    /// Interrupts the command that watches now, or the next one.
    public func interrupt() {
        let waiters = state.withLock { state in
            state.interrupted = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `body`; when interrupted first, cancels it and throws ``Interrupted``.
    func watching<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        var source: (any DispatchSourceSignal)?
        if catchesSIGINT {
            signal(SIGINT, SIG_IGN)
            let signals = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            signals.setEventHandler { [self] in interrupt() }
            signals.resume()
            source = signals
        }
        defer {
            if let source {
                source.cancel()
                signal(SIGINT, SIG_DFL)
            }
        }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                await self.wait()
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw Interrupted() }
            return result
        }
    }

    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.interrupted || Task.isCancelled { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            // Wakes the waiter so that the task group can finish; `watching` then returns the body's result.
            let waiters = state.withLock { state in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Thrown by ``watching(_:)`` when the command was interrupted.
    struct Interrupted: Error {}
}
