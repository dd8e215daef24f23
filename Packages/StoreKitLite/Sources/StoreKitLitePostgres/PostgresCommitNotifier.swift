import Logging
import PostgresNIO
import StoreKitLite

/// Wakes the followers of a schema's change log after commits, off the commit path.
///
/// PostgreSQL queues a transaction's `NOTIFY` at commit under one lock for the whole database, so commits that each
/// notify are serialised on it, and on a busy server that lock becomes the longest part of a commit. Commits here
/// notify nobody: after a commit returns, ``commitEnded()`` asks for one notification, sent on its own as a
/// single-statement transaction (`SELECT pg_notify(…)`). At most one is in flight per backend; the commits that end
/// while it is under way are covered by one more, sent as soon as it is done. So a burst of commits costs one or two
/// notifications, a commit never waits for one, and followers still hear of every commit promptly: an entry committed
/// before a notification is sent is visible to the reads it triggers. Followers also read the log every poll
/// interval, so a notification lost with a broken connection delays delivery by at most that much.
final class PostgresCommitNotifier: Sendable {
    private struct State {
        /// The task sending notifications, while one runs.
        var sender: Task<Void, Never>?
        /// Whether a commit ended after the notification in flight was sent for.
        var again = false
        var closed = false
    }

    private let pool: PostgresPool
    private let channel: String
    private let logger: Logger
    private let state = Locked(State())
    private let sent = Locked(0)

    /// Notifications sent so far (for tests).
    var sentCount: Int { sent.withLock { $0 } }

    init(pool: PostgresPool, channel: String, logger: Logger) {
        self.pool = pool
        self.channel = channel
        self.logger = logger
    }

    /// Asks for a notification covering a commit that has just ended; returns at once.
    func commitEnded() {
        state.withLock { state in
            guard !state.closed else { return }
            guard state.sender == nil else {
                state.again = true
                return
            }
            state.sender = Task { await self.sendUntilCaughtUp() }
        }
    }

    /// Sends notifications until no commit has ended since the last one was sent.
    private func sendUntilCaughtUp() async {
        while true {
            state.withLock { $0.again = false }
            await send()
            let done = state.withLock { state -> Bool in
                guard state.again, !state.closed else {
                    state.sender = nil
                    return true
                }
                return false
            }
            if done { return }
        }
    }

    private func send() async {
        var binder = PostgresBinder()
        let statement = PostgresQuery(
            unsafeSQL: "SELECT pg_notify(\(binder.bind(channel)), '')",
            binds: binder.bindings
        )
        do {
            _ = try await pool.withConnection { [logger] connection in
                try await connection.run(statement, logger: logger)
            }
            sent.withLock { $0 += 1 }
        } catch {
            // Followers read the log every poll interval as well: a lost wake-up only delays delivery.
            logger.debug("change log notification failed", metadata: ["storekitlite.error": "\(error)"])
        }
    }

    /// Stops asking for notifications and waits for the one in flight.
    func close() async {
        let sender = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            return state.sender
        }
        await sender?.value
    }
}
