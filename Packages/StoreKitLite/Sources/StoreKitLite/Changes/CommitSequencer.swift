import Dispatch

/// Runs a hierarchy's commits one at a time, in the order their changes were taken from the services.
///
/// A commit takes its ticket in the same critical section that takes its changes, so tickets follow the order in
/// which readers started to see those changes as in flight. A change made on top of an in-flight change (read
/// with the revision it will have once committed) is therefore always written after it. A caller with nothing of
/// its own to write can wait for a ticket too: it then returns only once every commit taken before it has ended,
/// including one that carries changes it saved into an ancestor earlier.
///
/// A small state machine with no I/O: ``ticket()`` and ``finish(_:)`` under a lock, ``waitForTurn(_:)`` suspends
/// (and ``waitForTurnBlocking(_:)`` blocks the calling thread) only while an earlier ticket is running.
final class CommitSequencer: Sendable {
    private struct State {
        /// The next ticket handed out.
        var issued = 0
        /// The ticket whose turn it is.
        var serving = 0
        /// Callers waiting for their turn, by ticket: what wakes each.
        var waiting: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    /// A new ticket; every ticket must be passed to ``finish(_:)`` exactly once, after ``waitForTurn(_:)``.
    ///
    /// Call it inside the critical section that takes the changes the ticket commits.
    func ticket() -> Int {
        state.withLock { state in
            defer { state.issued += 1 }
            return state.issued
        }
    }

    /// Whether any commit is in flight or waiting.
    var isIdle: Bool {
        state.withLock { $0.serving == $0.issued }
    }

    /// Returns when every earlier ticket has finished.
    func waitForTurn(_ ticket: Int) async {
        let ready = state.withLock { $0.serving == ticket }
        if ready { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.serving == ticket { return true }
                state.waiting[ticket] = { continuation.resume() }
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Returns when every earlier ticket has finished, blocking the calling thread until then (for the `…AndWait`
    /// forms, on threads the caller owns).
    func waitForTurnBlocking(_ ticket: Int) {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { state -> Bool in
            if state.serving == ticket { return true }
            state.waiting[ticket] = { semaphore.signal() }
            return false
        }
        if !ready { semaphore.wait() }
    }

    /// Ends `ticket`'s turn and starts the next one.
    func finish(_ ticket: Int) {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            precondition(state.serving == ticket, "a commit ticket finished out of turn")
            state.serving += 1
            return state.waiting.removeValue(forKey: state.serving)
        }
        next?()
    }
}
