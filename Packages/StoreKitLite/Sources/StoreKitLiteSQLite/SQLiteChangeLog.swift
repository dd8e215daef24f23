import Foundation
import GRDB
import StoreKitLite

/// The change log of an SQLite store (``StoreKitLite/ChangeFeed/allProcesses(pollInterval:retention:)``): the table
/// `storekitlite_changes`, one row per commit, written in the commit's transaction.
///
/// SQLite has one writer at a time, so `sequence` (an `AUTOINCREMENT` key) grows in commit order and a follower
/// reading `sequence > last` misses nothing.
enum SQLiteChangeLog {
    static let table = "storekitlite_changes"

    static let create = """
        CREATE TABLE IF NOT EXISTS storekitlite_changes (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            origin BLOB NOT NULL,
            committed_at REAL NOT NULL,
            payload BLOB NOT NULL) STRICT
        """

    /// What one commit appends to the log.
    struct Write: Sendable {
        /// The writing backend's identity, so that its own follower skips the entry.
        var origin: UUID
        /// Entries older than this are pruned in this commit; `nil` to prune nothing.
        var pruneBefore: Date?
    }

    static func append(_ batch: ChangeBatch, _ write: Write, in db: Database) throws {
        let payload = Data(ChangeLogEntry(batch).encoded())
        let now = Date().timeIntervalSince1970
        try db.execute(
            sql: "INSERT INTO storekitlite_changes (origin, committed_at, payload) VALUES (?, ?, ?)",
            arguments: [uuidBytes(write.origin), now, payload]
        )
        if let pruneBefore = write.pruneBefore {
            try db.execute(
                sql: "DELETE FROM storekitlite_changes WHERE committed_at < ?",
                arguments: [pruneBefore.timeIntervalSince1970]
            )
        }
    }

    static func exists(in db: Database) throws -> Bool {
        try db.tableExists(table)
    }

    /// The last sequence number in the log (0 for an empty one).
    static func lastSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'storekitlite_changes'") ?? 0
    }

    /// The batches other backends committed after `sequence`, at most `limit` of them, with the rows of their
    /// inserted and updated records read in the same transaction; and the last sequence number read.
    static func batches(
        after sequence: Int64,
        skipping origin: UUID,
        model: StoreModel,
        limit: Int,
        in db: Database
    ) throws -> (batches: [ChangeBatch], last: Int64) {
        let own = uuidBytes(origin)
        var last = sequence
        var entries: [(Int64, ChangeLogEntry)] = []
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT sequence, origin, payload FROM storekitlite_changes WHERE sequence > ? ORDER BY sequence LIMIT ?",
            arguments: [sequence, limit]
        )
        while let row = try rows.next() {
            let number: Int64 = row[0]
            last = number
            let writer: Data = row[1]
            guard writer != own else { continue }
            let payload: Data = row[2]
            entries.append((number, try ChangeLogEntry(decoding: payload)))
        }
        var batches: [ChangeBatch] = []
        for (number, entry) in entries {
            var current: [String: [UUID: StoreRow]] = [:]
            for changes in entry.entities {
                guard let entity = model.entity(named: changes.entity) else { continue }
                let ids = changes.inserted + changes.updated
                guard !ids.isEmpty else { continue }
                var byID = current[changes.entity] ?? [:]
                for row in try SQLiteReader.rows(ids: ids, entity: entity, in: db) { byID[row.id] = row }
                current[changes.entity] = byID
            }
            batches.append(
                ChangeBatch.fromAnotherProcess(entry, sequence: number, model: model, currentRows: current)
            )
        }
        return (batches, last)
    }

    private static func uuidBytes(_ id: UUID) -> Data {
        withUnsafeBytes(of: id.uuid) { Data($0) }
    }
}
