import Foundation
import GRDB
import GRDBSQLite
import Logging
public import StoreKitLite

/// Commits: group commit on the writer queue for the `async` form, GRDB's synchronous write for the calling-thread
/// form, and, with ``SQLiteBackend/Execution/callingThread``, a small commit on the calling thread when the writer
/// is idle.
extension SQLiteBackend {
    /// Writes a batch in one transaction and returns once it is durable.
    ///
    /// The batch joins the group commit: while a commit is running, batches that arrive wait, then share the next
    /// transaction (one sync to disk for all of them). Each member is written in a savepoint of its own: a member
    /// that fails (a revision conflict, a duplicate ID) is rolled back alone and gets its error, and the others are
    /// committed. With ``Execution/callingThread``, a batch of up to 64 rows that finds no commit running or queued
    /// is committed on the calling thread instead, when no other connection holds the write lock.
    public func apply(_ batch: ChangeBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        let database = try database()
        try checkWritable()
        if execution == .callingThread, Self.rowCount(of: batch) <= Self.callingThreadRowLimit, groupCommit.isIdle,
            try commitOnCallingThreadIfIdle(batch, database: database)
        {
            publish([batch])
            return
        }
        try await groupCommit.submit(batch) { batches in await self.commit(batches, on: database) }
    }

    /// Writes a batch in one transaction on the calling thread, which waits for the writer connection (GRDB's
    /// synchronous write) and for the commit's sync to disk.
    public func applyOnCallingThread(_ batch: ChangeBatch) throws(StoreError) {
        guard !batch.isEmpty else { return }
        let database = try database()
        try checkWritable()
        let insertTexts = insertTexts
        let logger = logger
        let log = changeLogWrite()
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        do {
            try database.write { db in
                try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log)
                if let logger { Self.logCommit(batch, to: logger) }
            }
        } catch {
            throw failure(error, operation: "write")
        }
        publish([batch])
    }

    private func checkWritable() throws(StoreError) {
        guard access == .readWrite else {
            throw StoreError(.readOnly, detail: "write", reason: "the store is opened read-only")
        }
    }

    /// Announces committed batches, in commit order, and counts them for an in-memory store's ``commitVersion()``.
    private func publish(_ batches: [ChangeBatch]) {
        guard !batches.isEmpty else { return }
        if location == .memory { ownCommits.withLock { $0 += 1 } }
        for batch in batches { broadcaster.publish(batch) }
    }

    /// A member of a group whose failure ended the whole transaction (SQLite rolls back by itself after a full
    /// disk or an I/O error): the group is written again without it.
    private struct AbortedMember: Error {
        let index: Int
        let error: any Error
    }

    /// Commits a group of batches, in order, in one transaction on the writer queue, each in a savepoint of its own;
    /// returns each one's outcome (`nil`: durable), in order.
    ///
    /// A member whose statements fail is rolled back to its savepoint and the others go on. Should a failure end the
    /// transaction itself, the group is written again without that member. Should the commit fail, every member of
    /// that transaction fails with its error, and nothing of them is stored.
    private func commit(_ batches: [ChangeBatch], on database: any DatabaseWriter) async -> [StoreError?] {
        var outcomes = [StoreError?](repeating: nil, count: batches.count)
        var remaining = Array(batches.indices)
        let insertTexts = insertTexts
        let logger = logger
        pendingWrites.withLock { $0 += 1 }
        defer { pendingWrites.withLock { $0 -= 1 } }
        while !remaining.isEmpty {
            let attempt = remaining
            let logs = attempt.map { _ in changeLogWrite() }
            do {
                let failed = try await database.write { db -> [Int: StoreError] in
                    guard attempt.count > 1 else {
                        try SQLiteWriter.apply(batches[attempt[0]], in: db, insertTexts: insertTexts, log: logs[0])
                        if let logger { Self.logCommit(batches[attempt[0]], to: logger) }
                        return [:]
                    }
                    var failed: [Int: StoreError] = [:]
                    for (position, index) in attempt.enumerated() {
                        try db.execute(sql: "SAVEPOINT storekitlite_member")
                        do {
                            try SQLiteWriter.apply(
                                batches[index],
                                in: db,
                                insertTexts: insertTexts,
                                log: logs[position]
                            )
                            try db.execute(sql: "RELEASE storekitlite_member")
                            if let logger { Self.logCommit(batches[index], to: logger) }
                        } catch {
                            guard db.isInsideTransaction else { throw AbortedMember(index: index, error: error) }
                            try db.execute(sql: "ROLLBACK TO storekitlite_member")
                            try db.execute(sql: "RELEASE storekitlite_member")
                            failed[index] = self.failure(error, operation: "write")
                        }
                    }
                    return failed
                }
                for index in attempt { outcomes[index] = failed[index] }
                remaining = []
                groupTransactionCount.withLock { $0 += 1 }
            } catch let aborted as AbortedMember {
                outcomes[aborted.index] = failure(aborted.error, operation: "write")
                remaining.removeAll { $0 == aborted.index }
            } catch {
                let mapped = failure(error, operation: "write")
                for index in attempt { outcomes[index] = mapped }
                remaining = []
            }
        }
        publish(zip(batches, outcomes).compactMap { $1 == nil ? $0 : nil })
        return outcomes
    }

    private static func rowCount(of batch: ChangeBatch) -> Int {
        var count = 0
        for changes in batch.entities {
            count += changes.inserts.count + changes.updates.count + changes.deletes.count
        }
        return count
    }

    /// Commits `batch` on this thread if the writer is idle; returns whether it did. It does nothing when a write of
    /// this backend is queued or running, or another connection holds the write lock: the caller then submits the
    /// batch to the group commit.
    private func commitOnCallingThreadIfIdle(
        _ batch: ChangeBatch,
        database: any DatabaseWriter
    ) throws(StoreError) -> Bool {
        let claimed = pendingWrites.withLock { pending in
            guard pending == 0 else { return false }
            pending = 1
            return true
        }
        guard claimed else { return false }
        defer { pendingWrites.withLock { $0 -= 1 } }
        let insertTexts = insertTexts
        let logger = logger
        let log = changeLogWrite()
        do {
            // No other write of this backend is queued or running, so GRDB runs this on the calling thread
            // without waiting for its queue.
            return try database.writeWithoutTransaction { db -> Bool in
                let connection = db.sqliteConnection
                // Never wait for another connection's write lock here: `BEGIN IMMEDIATE` fails at once instead,
                // and the batch goes through the group commit with the normal busy timeout.
                sqlite3_busy_timeout(connection, 0)
                defer { sqlite3_busy_timeout(connection, Self.busyTimeoutMilliseconds) }
                var began = false
                do {
                    try db.inTransaction(.immediate) {
                        began = true
                        try SQLiteWriter.apply(batch, in: db, insertTexts: insertTexts, log: log)
                        if let logger { Self.logCommit(batch, to: logger) }
                        return .commit
                    }
                } catch let error as DatabaseError where !began && error.resultCode == .SQLITE_BUSY {
                    logger?.debug("write lock held by another connection; committing through the writer queue")
                    return false
                }
                return true
            }
        } catch {
            throw failure(error, operation: "write")
        }
    }
}
