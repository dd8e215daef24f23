/// One schema change, described as data so that every backend can carry it out.
public enum MigrationStep: Sendable, Hashable {
    /// Creates the entity with its implicit `id` and `revision` columns and the given columns.
    case createEntity(EntityDescription)
    /// Adds a column to an existing entity; existing rows get `defaultValue`.
    case addColumn(entity: String, column: ColumnDescription, defaultValue: StoreValue)
    /// Adds an index named `name` over columns of an entity, in order, so that queries filtering or sorting on them
    /// need not scan every record. An index changes speed only, never results; stores without indexes (the
    /// in-memory one) skip the step.
    case createIndex(name: String, entity: String, columns: [String])
    /// Adds an index as ``createIndex(name:entity:columns:)`` does, and makes the store refuse a write that would
    /// give two records equal values in all of its columns: the write fails with
    /// ``StoreError/Code/duplicateValue`` and nothing of its batch is written. A record with `NULL` in one of the
    /// columns never clashes (as in SQL). SQL backends check as each row is written, not at the end of the batch,
    /// so a batch must not count on a value another of its records gives up. Every backend enforces it, the
    /// in-memory one included; the step fails with ``StoreError/Code/duplicateValue`` when stored records already
    /// clash.
    case createUniqueIndex(name: String, entity: String, columns: [String])
}
