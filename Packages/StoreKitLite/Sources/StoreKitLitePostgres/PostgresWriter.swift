import Foundation
import Logging
import PostgresNIO
import StoreKitLite

/// Writes a ``StoreKitLite/ChangeBatch`` on a connection inside the caller's transaction. Inserts go in multi-row
/// `INSERT`s; updates and deletes check the revision in their `WHERE` clause and report, through `RETURNING`,
/// whether they found their row. Conflicts are collected over the whole batch and thrown at the end, which rolls
/// the transaction back.
enum PostgresWriter {
    /// The most rows one `INSERT` carries (PostgreSQL accepts at most 65,535 parameters per statement).
    static let maximumRowsPerInsert = 500

    static func apply(
        _ batch: ChangeBatch,
        schema: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        var conflicts: [UUID] = []
        for changes in batch.entities {
            let entity = changes.entity
            if !changes.inserts.isEmpty {
                let perStatement = max(1, min(maximumRowsPerInsert, 65_535 / (entity.columns.count + 1)))
                var start = changes.inserts.startIndex
                while start < changes.inserts.endIndex {
                    let end = min(start + perStatement, changes.inserts.endIndex)
                    let query = try insert(changes.inserts[start..<end], into: entity, schema: schema)
                    try await connection.query(query, logger: logger).consume()
                    start = end
                }
            }
            for update in changes.updates where !update.changedColumns.isEmpty {
                let query = try self.update(update, in: entity, schema: schema)
                let written = try await connection.query(query, logger: logger).consume()
                if written == 0, update.checksRevision { conflicts.append(update.row.id) }
            }
            for delete in changes.deletes {
                let query = self.delete(delete, from: entity, schema: schema)
                let deleted = try await connection.query(query, logger: logger).consume()
                if deleted == 0, delete.checksRevision { conflicts.append(delete.row.id) }
            }
        }
        if !conflicts.isEmpty {
            throw StoreError(.conflict, entity: batch.entities.first?.entity.name, records: conflicts)
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
