import Dispatch
import GRDBSQLite
import StoreKitLite
import Synchronization

/// Copies the write-ahead log back into the database file on a connection and a queue of its own, so that no commit
/// waits for it.
///
/// SQLite's automatic checkpoint runs inside whichever commit makes the log reach 1,000 pages, and that commit
/// returns only after the pages are copied and the file synced: one commit in every few hundred takes milliseconds
/// instead of microseconds. The writer connection gets ``install(on:)``'s hook instead, which SQLite calls after each
/// commit (with the write lock already released) with the number of pages in the log. Past ``threshold`` pages the
/// hook asks for a `PASSIVE` checkpoint here and returns at once; the checkpoint copies what no reader still needs
/// while writers go on appending, and the next writer restarts the log once it is all copied. Should the log still
/// reach ``backstop`` pages (checkpoints that cannot keep up, or are held back by long reads), the committing writer
/// checkpoints itself, as SQLite's automatic checkpoint would, so the log stays bounded.
///
/// `@unchecked Sendable` is safe: `connection` is used only on `queue`, and the rest is in a `Mutex`.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// Pages of log that start a background checkpoint (SQLite's default for its automatic checkpoint).
    static let threshold: Int32 = 1_000
    /// Pages of log past which the committing writer checkpoints itself.
    static let backstop: Int32 = 8_000

    private let path: String
    private let synchronous: String
    private let queue = DispatchQueue(label: "StoreKitLite.SQLiteCheckpointer", qos: .utility)
    private let state = Mutex<(scheduled: Bool, closed: Bool, completed: Int)>((false, false, 0))
    /// The checkpointing connection, opened on `queue` at the first checkpoint.
    private var connection: OpaquePointer?

    /// A checkpointer for the database file at `path`, syncing as `synchronous` (`NORMAL` or `FULL`) says.
    init(path: String, synchronous: String) {
        self.path = path
        self.synchronous = synchronous
    }

    deinit {
        sqlite3_close_v2(connection)
    }

    /// Background checkpoints run to completion so far (for tests).
    var completedCheckpoints: Int { state.withLock { $0.completed } }

    /// Replaces SQLite's automatic checkpoint on `writer` (the one connection that commits) with this checkpointer.
    ///
    /// The hook holds this checkpointer unretained: the backend that owns both closes the writer before it lets go
    /// of the checkpointer.
    func install(on writer: OpaquePointer) {
        sqlite3_wal_hook(writer, Self.hook, Unmanaged.passUnretained(self).toOpaque())
    }

    private static let hook:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) ->
            Int32 = { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
                if pages >= backstop, let connection {
                    // What SQLite's automatic checkpoint does; a busy checkpointer is not an error of the commit.
                    _ = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                    return SQLITE_OK
                }
                if pages >= threshold { checkpointer.schedule() }
                return SQLITE_OK
            }

    /// Runs a checkpoint on the queue unless one is already waiting to run.
    func schedule() {
        let starts = state.withLock { state -> Bool in
            guard !state.scheduled, !state.closed else { return false }
            state.scheduled = true
            return true
        }
        guard starts else { return }
        queue.async { [self] in
            // Cleared first: a commit that comes while this one copies asks for another run.
            state.withLock { $0.scheduled = false }
            guard !state.withLock({ $0.closed }) else { return }
            guard let connection = openedConnection() else { return }
            if sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                state.withLock { $0.completed += 1 }
            }
        }
    }

    /// Returns once the checkpoints asked for so far have run (for tests).
    func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Stops scheduling, waits for a checkpoint that is running, and closes the connection, so that the backend's
    /// writer can be the last connection to close.
    func close() async {
        state.withLock { $0.closed = true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                sqlite3_close_v2(connection)
                connection = nil
                continuation.resume()
            }
        }
    }

    private func openedConnection() -> OpaquePointer? {
        if let connection { return connection }
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let opened
        else {
            sqlite3_close_v2(opened)
            return nil
        }
        // The checkpoint syncs as this connection's setting says: the same as the writer's.
        sqlite3_exec(opened, "PRAGMA synchronous = \(synchronous)", nil, nil, nil)
        connection = opened
        return opened
    }
}
