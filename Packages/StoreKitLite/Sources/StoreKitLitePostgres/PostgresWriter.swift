import Foundation
import Logging
import PostgresNIO
import StoreKitLite

/// Writes a ``StoreKitLite/ChangeBatch`` on a connection inside the caller's transaction. Inserts go in multi-row
/// `INSERT`s or, from ``PostgresBackend/defaultCopyThreshold`` (or the configured threshold) new records of one
/// entity on, in one `COPY … FROM STDIN`
/// (``PostgresCopy``); updates and deletes check the revision in their `WHERE` clause and report, through
/// `RETURNING`, whether they found their row. Conflicts are collected over the whole batch and thrown at the end,
/// which rolls the transaction back.
///
/// Every statement and every `COPY` input is made by ``plan(_:schema:copyThreshold:)`` before the transaction begins, so a value
/// that does not fit its column fails the batch before anything is sent, and the transaction stays open only for
/// as long as the server takes.
enum PostgresWriter {
    /// The most rows one `INSERT` carries (PostgreSQL accepts at most 65,535 parameters per statement).
    static let maximumRowsPerInsert = 500

    /// A batch's statements, in order, ready to send.
    struct Plan {
        enum Step {
            /// Inserts: a multi-row `INSERT`.
            case insert(PostgresQuery)
            /// Inserts: one `COPY` with its whole input.
            case copy(PostgresCopy.Input)
            /// An update or delete with `RETURNING 1`; finding no row is a conflict on `record` when it is set.
            case checked(PostgresQuery, conflictOn: UUID?)
        }

        var steps: [Step] = []
        /// The entity named in a conflict error.
        var entity: String?
    }

    /// Makes every statement of `batch`, converting and checking every value.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/backend`` for a value that does not fit its column.
    static func plan(_ batch: ChangeBatch, schema: String, copyThreshold: Int?) throws(StoreError) -> Plan {
        var plan = Plan(entity: batch.entities.first?.entity.name)
        for changes in batch.entities {
            let entity = changes.entity
            if let copyThreshold, changes.inserts.count >= copyThreshold {
                plan.steps.append(.copy(try PostgresCopy.encode(changes.inserts[...], of: entity, schema: schema)))
            } else if !changes.inserts.isEmpty {
                let perStatement = max(1, min(maximumRowsPerInsert, 65_535 / (entity.columns.count + 1)))
                var start = changes.inserts.startIndex
                while start < changes.inserts.endIndex {
                    let end = min(start + perStatement, changes.inserts.endIndex)
                    plan.steps.append(.insert(try insert(changes.inserts[start..<end], into: entity, schema: schema)))
                    start = end
                }
            }
            for update in changes.updates where !update.changedColumns.isEmpty {
                plan.steps.append(
                    .checked(
                        try self.update(update, in: entity, schema: schema),
                        conflictOn: update.checksRevision ? update.row.id : nil
                    )
                )
            }
            for delete in changes.deletes {
                plan.steps.append(
                    .checked(
                        self.delete(delete, from: entity, schema: schema),
                        conflictOn: delete.checksRevision ? delete.row.id : nil
                    )
                )
            }
        }
        return plan
    }

    /// Sends a plan's statements on `connection`, inside the caller's transaction.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/conflict`` naming every record an update or delete did not find
    ///   at its revision, after the other statements ran; the server's errors as they come.
    static func apply(_ plan: Plan, on connection: PostgresConnection, logger: Logger) async throws {
        var conflicts: [UUID] = []
        for step in plan.steps {
            switch step {
            case .insert(let query):
                try await connection.run(query, logger: logger)
            case .copy(let input):
                try await PostgresCopy.send(input, on: connection, logger: logger)
            case .checked(let query, let record):
                let found = try await connection.run(query, logger: logger)
                if found == 0, let record { conflicts.append(record) }
            }
        }
        if !conflicts.isEmpty {
            throw StoreError(.conflict, entity: plan.entity, records: conflicts)
        }
    }

    /// One multi-row `INSERT`; every row gets revision 1.
    static func insert(
        _ rows: ArraySlice<StoreRow>,
        into entity: EntityDescription,
        schema: String
    ) throws(StoreError) -> PostgresQuery {
        var binder = PostgresBinder()
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        for row in rows {
            guard row.values.count == entity.columns.count else {
                throw StoreError(.backend, entity: entity.name, detail: "a row has the wrong number of columns")
            }
            var tuple = [binder.bind(row.id), "1"]
            for (column, value) in zip(entity.columns, row.values) {
                tuple.append(try binder.bind(value, storedAs: column.type, column: column.name))
            }
            tuples.append("(" + tuple.joined(separator: ", ") + ")")
        }
        let sql =
            "INSERT INTO \(PostgresSQL.table(entity.name, in: schema)) (\(PostgresQueryBuilder.columnList(entity))) "
            + "VALUES " + tuples.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: sql, binds: binder.bindings)
    }

    /// Writes the changed columns and bumps the revision; returns one row when the record was found.
    static func update(
        _ update: RowUpdate,
        in entity: EntityDescription,
        schema: String
    ) throws(StoreError) -> PostgresQuery {
        var binder = PostgresBinder()
        var assignments: [String] = []
        for index in update.changedColumns {
            guard entity.columns.indices.contains(index), update.row.values.indices.contains(index) else {
                throw StoreError(.backend, entity: entity.name, detail: "an update names column \(index)")
            }
            let column = entity.columns[index]
            let value = try binder.bind(update.row.values[index], storedAs: column.type, column: column.name)
            assignments.append("\(PostgresSQL.quoted(column.name)) = \(value)")
        }
        var sql =
            "UPDATE \(PostgresSQL.table(entity.name, in: schema)) SET \(assignments.joined(separator: ", ")), "
            + "revision = revision + 1 WHERE id = \(binder.bind(update.row.id))"
        if update.checksRevision {
            sql += " AND revision = \(binder.bind(update.row.revision))"
        }
        return PostgresQuery(unsafeSQL: sql + " RETURNING 1", binds: binder.bindings)
    }

    /// Deletes a record; returns one row when it was found.
    static func delete(_ delete: RowDelete, from entity: EntityDescription, schema: String) -> PostgresQuery {
        var binder = PostgresBinder()
        var sql = "DELETE FROM \(PostgresSQL.table(entity.name, in: schema)) WHERE id = \(binder.bind(delete.row.id))"
        if delete.checksRevision {
            sql += " AND revision = \(binder.bind(delete.row.revision))"
        }
        return PostgresQuery(unsafeSQL: sql + " RETURNING 1", binds: binder.bindings)
    }
}

extension PostgresRowSequence {
    /// Reads every row, discarding it; returns how many there were.
    @discardableResult
    func consume() async throws -> Int {
        var count = 0
        for try await _ in self { count += 1 }
        return count
    }
}
