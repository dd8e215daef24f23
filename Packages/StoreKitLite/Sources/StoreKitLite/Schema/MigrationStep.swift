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
}
