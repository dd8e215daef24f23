public import Foundation

/// Which commits a backend's ``StoreBackend/committedChanges()`` delivers: its own only, or those of every process
/// that writes the store.
///
/// With ``allProcesses(pollInterval:retention:)`` a backend keeps a durable change log in the store: every commit
/// appends one entry (its record IDs per entity and kind, never its values) in the same transaction as its rows,
/// and the backend follows the log, delivering the other processes' commits after its own. The log is what makes
/// the feed complete: a follower that falls behind, or loses its connection, reads on from the last entry it
/// delivered and misses nothing. Entries older than `retention` are pruned by the writers, so the log holds about
/// `retention` worth of commits; a follower that stays away longer than that misses what was pruned.
///
/// A batch from another process carries the rows as they are when it is delivered (a later commit of the same
/// records may already show), and a deleted record as its ID alone (see ``ChangeBatch/isFromAnotherProcess``).
public struct ChangeFeed: Sendable, Hashable {
    /// How often a follower looks for new entries when nothing tells it to sooner (SQLite has no notifications; a
    /// PostgreSQL follower is woken by `NOTIFY` and uses this as a fallback).
    public let pollInterval: Duration
    /// How long entries stay in the log before writers prune them; `nil` for a feed without a log.
    public let retention: Duration?

    /// The backend's own commits only, and nothing is logged: for a store one process writes.
    public static let thisProcess = ChangeFeed(pollInterval: .zero, retention: nil)

    /// The commits of every process that writes the store, through a durable change log in it.
    ///
    /// Every process writing the store should use it: a process that does not still logs its commits once the log
    /// exists (it checks when it opens the store), but a process that opened the store before the log was created
    /// does not.
    ///
    /// - Parameters:
    ///   - pollInterval: how often to look for other processes' commits without a notification (default 100 ms).
    ///   - retention: how long log entries are kept (default one hour).
    public static func allProcesses(
        pollInterval: Duration = .milliseconds(100),
        retention: Duration = .seconds(3_600)
    ) -> ChangeFeed {
        ChangeFeed(pollInterval: pollInterval, retention: retention)
    }

    /// Whether the feed follows a change log.
    public var followsOtherProcesses: Bool { retention != nil }
}

/// One entry of a store's change log, as backends write and read it: the record IDs one commit inserted, updated
/// and deleted, per entity.
///
/// The encoding is compact and versioned (a leading format byte); values are never logged.
public struct ChangeLogEntry: Sendable, Hashable {
    /// The IDs one commit wrote to one entity.
    public struct Changes: Sendable, Hashable {
        public var entity: String
        public var inserted: [UUID]
        public var updated: [UUID]
        public var deleted: [UUID]

        public init(entity: String, inserted: [UUID] = [], updated: [UUID] = [], deleted: [UUID] = []) {
            self.entity = entity
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }
    }

    /// The changes per entity.
    public var entities: [Changes]

    public init(entities: [Changes]) {
        self.entities = entities
    }

    /// The entry for a committed batch.
    public init(_ batch: ChangeBatch) {
        entities = batch.entities.map { changes in
            Changes(
                entity: changes.entity.name,
                inserted: changes.inserts.map(\.id),
                updated: changes.updates.map(\.row.id),
                deleted: changes.deletes.map(\.row.id)
            )
        }
    }

    private static let format: UInt8 = 1

    /// The entry's bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.format]
        var idCount = 0
        for changes in entities {
            idCount += changes.inserted.count + changes.updated.count + changes.deleted.count
        }
        bytes.reserveCapacity(1 + entities.count * 32 + idCount * 16)
        Self.append(UInt32(entities.count), to: &bytes)
        for changes in entities {
            let name = Array(changes.entity.utf8)
            Self.append(UInt32(name.count), to: &bytes)
            bytes.append(contentsOf: name)
            for ids in [changes.inserted, changes.updated, changes.deleted] {
                Self.append(UInt32(ids.count), to: &bytes)
                for id in ids {
                    withUnsafeBytes(of: id.uuid) { bytes.append(contentsOf: $0) }
                }
            }
        }
        return bytes
    }

    /// Reads an entry's bytes.
    ///
    /// - Throws: ``StoreError/Code/backend`` for bytes that are not an entry of a format this version knows.
    public init<Bytes: Collection<UInt8>>(decoding bytes: Bytes) throws(StoreError) {
        var reader = Reader(bytes: Array(bytes))
        guard reader.byte() == Self.format else {
            throw StoreError(.backend, detail: "read the change log", reason: "an entry of an unknown format")
        }
        var entities: [Changes] = []
        guard let entityCount = reader.uint32() else { throw Self.truncated }
        for _ in 0..<entityCount {
            guard let nameLength = reader.uint32(), let name = reader.bytes(Int(nameLength)) else {
                throw Self.truncated
            }
            var lists: [[UUID]] = []
            for _ in 0..<3 {
                guard let count = reader.uint32() else { throw Self.truncated }
                var ids: [UUID] = []
                ids.reserveCapacity(Int(min(count, 1 << 20)))
                for _ in 0..<count {
                    guard let id = reader.uuid() else { throw Self.truncated }
                    ids.append(id)
                }
                lists.append(ids)
            }
            entities.append(
                Changes(
                    entity: String(decoding: name, as: UTF8.self),
                    inserted: lists[0],
                    updated: lists[1],
                    deleted: lists[2]
                )
            )
        }
        guard reader.isAtEnd else { throw Self.truncated }
        self.entities = entities
    }

    private static var truncated: StoreError {
        StoreError(.backend, detail: "read the change log", reason: "a truncated entry")
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - position >= count else { return nil }
            defer { position += count }
            return bytes[position..<position + count]
        }

        mutating func uint32() -> UInt32? {
            guard let slice = bytes(4) else { return nil }
            var value: UInt32 = 0
            for (shift, byte) in slice.enumerated() { value |= UInt32(byte) << (8 * UInt32(shift)) }
            return value
        }

        mutating func uuid() -> UUID? {
            guard let slice = bytes(16) else { return nil }
            let b = Array(slice)
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                    b[15]
                )
            )
        }
    }
}

extension ChangeBatch {
    /// The batch another process committed, as a follower delivers it: `entry`'s records, with the rows of the
    /// inserted and updated ones as stored now (`currentRows`, by entity name and ID). A record whose row is gone
    /// (deleted since), and every deleted record, is reported by its ID alone: a row with revision 0 and `NULL`
    /// values (see ``isFromAnotherProcess``). Entities the model does not know are skipped.
    public static func fromAnotherProcess(
        _ entry: ChangeLogEntry,
        sequence: Int64,
        model: StoreModel,
        currentRows: [String: [UUID: StoreRow]]
    ) -> ChangeBatch {
        var batch = ChangeBatch()
        batch.sequence = sequence
        batch.isFromAnotherProcess = true
        for changes in entry.entities {
            guard let entity = model.entity(named: changes.entity) else { continue }
            let rows = currentRows[changes.entity] ?? [:]
            let unknownValues = Array(repeating: StoreValue.null, count: entity.columns.count)
            func row(_ id: UUID) -> StoreRow {
                rows[id] ?? StoreRow(id: id, revision: 0, values: unknownValues)
            }
            batch.entities.append(
                EntityChanges(
                    entity: entity,
                    inserts: changes.inserted.map(row),
                    updates: changes.updated.map {
                        RowUpdate(row: row($0), changedColumns: Array(entity.columns.indices), checksRevision: false)
                    },
                    deletes: changes.deleted.map {
                        RowDelete(row: StoreRow(id: $0, revision: 0, values: unknownValues), checksRevision: false)
                    }
                )
            )
        }
        return batch
    }
}

/// How a backend following its store's change log is doing: what a health check reports.
public struct ChangeFeedStatus: Sendable, Hashable {
    /// Whether the backend follows other processes' commits at all.
    public var isFollowing = false
    /// Whether its last read of the log succeeded and its listener (if the backend has one) is connected. While
    /// this is `false`, other processes' commits may have happened that observers have not been told of yet.
    public var isConnected = false
    /// When the log was last read successfully.
    public var lastRead: Date?
    /// The sequence number of the last batch from another process that was delivered.
    public var lastSequence: Int64?
    /// How many batches from other processes have been delivered.
    public var deliveredBatches = 0

    public init() {}
}
