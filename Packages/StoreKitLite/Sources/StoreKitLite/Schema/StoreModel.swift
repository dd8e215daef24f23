/// The record types a store holds and the ordered, named migrations that build them.
///
/// ```swift
/// let model = StoreModel(Vehicle.self, Driver.self)   // one migration creating both
/// let evolved = StoreModel(
///     entities: [Vehicle.schema.entity],
///     migrations: [
///         Migration("create vehicles", steps: [.createEntity(oldVehicleEntity)]),
///         Migration("add mileage", steps: [.addColumn(entity: "vehicles", column: mileage, defaultValue: .null)]),
///     ]
/// )
/// ```
///
/// The migrations, replayed from nothing, must produce exactly ``entities``; ``validate()`` checks that before a
/// store is touched.
public struct StoreModel: Sendable {
    /// The current entities.
    public let entities: [EntityDescription]
    /// The history, oldest first.
    public let migrations: [Migration]

    /// A model with an explicit history.
    public init(entities: [EntityDescription], migrations: [Migration]) {
        self.entities = entities
        self.migrations = migrations
    }

    /// A model of the given record types with one migration, named after them, creating them all.
    public init(_ records: any Record.Type...) {
        self.init(records: records)
    }

    /// A model of the given record types; without `migrations`, one migration creating them all.
    public init(records: [any Record.Type], migrations: [Migration]? = nil) {
        let entities = records.map { Self.entity(of: $0) }
        self.entities = entities
        self.migrations =
            migrations ?? [
                Migration(
                    "create " + entities.map(\.name).joined(separator: ", "),
                    steps: entities.map { .createEntity($0) }
                )
            ]
    }

    private static func entity<R: Record>(of type: R.Type) -> EntityDescription {
        R.schema.entity
    }

    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// Checks that names are unique and that the migrations produce the entities.
    ///
    /// - Throws: ``StoreError/Code/invalidModel`` saying what is wrong.
    public func validate() throws(StoreError) {
        var names: Set<String> = []
        for migration in migrations where !names.insert(migration.name).inserted {
            throw StoreError(.invalidModel, detail: "migration \(migration.name) appears twice")
        }
        var built: [String: EntityDescription] = [:]
        var order: [String] = []
        var indexes: Set<String> = []
        for migration in migrations {
            for step in migration.steps {
                switch step {
                case .createEntity(let entity):
                    guard built[entity.name] == nil else {
                        throw StoreError(.invalidModel, entity: entity.name, detail: "created twice")
                    }
                    built[entity.name] = entity
                    order.append(entity.name)
                case .addColumn(let name, let column, let defaultValue):
                    guard let entity = built[name] else {
                        throw StoreError(.invalidModel, entity: name, detail: "column added before the entity exists")
                    }
                    if !column.isNullable && defaultValue.isNull {
                        throw StoreError(.invalidModel, entity: name, detail: "\(column.name) needs a default")
                    }
                    built[name] = EntityDescription(name: name, columns: entity.columns + [column])
                case .createIndex(let index, let name, let columns),
                    .createUniqueIndex(let index, let name, let columns):
                    guard let entity = built[name] else {
                        throw StoreError(.invalidModel, entity: name, detail: "index \(index) before the entity exists")
                    }
                    guard !index.isEmpty, !indexes.contains(index) else {
                        throw StoreError(
                            .invalidModel,
                            entity: name,
                            detail: "index name \(index) is empty or repeated"
                        )
                    }
                    let known = Set(entity.columns.map(\.name)).union(EntityDescription.reservedColumnNames)
                    guard !columns.isEmpty, columns.allSatisfy(known.contains) else {
                        throw StoreError(.invalidModel, entity: name, detail: "index \(index) names unknown columns")
                    }
                    indexes.insert(index)
                }
            }
        }
        for entity in entities {
            var columnNames: Set<String> = []
            for column in entity.columns
            where EntityDescription.reservedColumnNames.contains(column.name)
                || !columnNames.insert(column.name).inserted
            {
                throw StoreError(.invalidModel, entity: entity.name, detail: "bad or repeated column \(column.name)")
            }
            guard built[entity.name] == entity else {
                throw StoreError(.invalidModel, entity: entity.name, detail: "the migrations do not produce it")
            }
        }
        if built.count != entities.count {
            throw StoreError(.invalidModel, detail: "the migrations create entities the model does not list")
        }
    }

    /// The migrations still to apply to a store that has applied `applied` (names, oldest first).
    ///
    /// - Throws: ``StoreError/Code/newerSchema`` when the store has applied a migration this model does not have
    ///   at that position.
    public func pendingMigrations(afterApplied applied: [String]) throws(StoreError) -> ArraySlice<Migration> {
        guard applied.count <= migrations.count else {
            throw StoreError(
                .newerSchema,
                detail: "the store has \(applied.count) migrations, the model \(migrations.count)"
            )
        }
        for (position, name) in applied.enumerated() where migrations[position].name != name {
            throw StoreError(.newerSchema, detail: "unknown migration \(name)")
        }
        return migrations[applied.count...]
    }
}
