public import Tracing

extension PersistenceService {
    /// The tracer the process installed: `InstrumentationSystem.tracer`, which a `withTracer(_:_:)` scope around
    /// the caller overrides; `nil` when that is `NoOpTracer` (nothing installed). The default `tracer` of
    /// ``init(model:backend:mergePolicy:tracer:)``, read once when the root service is made.
    public static var installedTracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// The tracer the hierarchy's operations start spans with; `nil` when they trace nothing.
    public var tracer: (any Tracer)? {
        context.tracer
    }

    /// A span for a fetch by query, parented to the caller's current context; `nil` without a tracer.
    @usableFromInline
    func startSpan(fetching query: RowQuery) -> StoreSpan? {
        guard let span = startSpan(StoreSpan.Operation.select, entity: query.entity.name) else { return nil }
        span.span.updateAttributes { attributes in
            attributes[StoreSpan.Key.predicate] = query.predicate.shape
            attributes[StoreSpan.Key.sorted] = !query.sortKeys.isEmpty
            attributes[StoreSpan.Key.limited] = query.limit != nil || query.offset > 0
        }
        return span
    }

    /// A span for a fetch by IDs; `nil` without a tracer.
    func startSpan(fetchingIDs count: Int, of entity: EntityDescription) -> StoreSpan? {
        guard let span = startSpan(StoreSpan.Operation.select, entity: entity.name) else { return nil }
        span.span.attributes[StoreSpan.Key.requestedIDs] = count
        return span
    }

    /// A span for a count; `nil` without a tracer.
    func startSpan(counting query: RowQuery) -> StoreSpan? {
        guard let span = startSpan(StoreSpan.Operation.count, entity: query.entity.name) else { return nil }
        span.span.updateAttributes { attributes in
            attributes[StoreSpan.Key.predicate] = query.predicate.shape
            attributes[StoreSpan.Key.limited] = query.limit != nil || query.offset > 0
        }
        return span
    }

    /// A span for a commit of `batch` to the store; `nil` without a tracer.
    ///
    /// Named after OpenTelemetry's batch convention: `INSERT vehicles` for one record, `BATCH INSERT vehicles` for
    /// several records of one kind of change, `BATCH vehicles` when kinds of change are mixed; the entity is left
    /// out when the batch writes several (`BATCH INSERT`, `BATCH`).
    func startSpan(committing batch: ChangeBatch, option: SaveOption) -> StoreSpan? {
        guard let tracer = context.tracer else { return nil }
        var kinds: Set<String> = []
        var inserts = 0
        var updates = 0
        var deletes = 0
        var entities: [String] = []
        for changes in batch.entities where !changes.isEmpty {
            entities.append(changes.entity.name)
            if !changes.inserts.isEmpty { kinds.insert(StoreSpan.Operation.insert) }
            if !changes.updates.isEmpty { kinds.insert(StoreSpan.Operation.update) }
            if !changes.deletes.isEmpty { kinds.insert(StoreSpan.Operation.delete) }
            inserts += changes.inserts.count
            updates += changes.updates.count
            deletes += changes.deletes.count
        }
        let records = inserts + updates + deletes
        let kind = kinds.count == 1 ? kinds.first : nil
        let operation: String =
            switch (records > 1, kind) {
            case (false, let kind?): kind
            case (true, let kind?): StoreSpan.Operation.batch + " " + kind
            case (_, nil): StoreSpan.Operation.batch
            }
        let collection = entities.count == 1 ? entities[0] : nil
        let span = StoreSpan(
            tracer: tracer,
            name: collection.map { operation + " " + $0 } ?? operation,
            context: ServiceContext.current ?? .topLevel,
            kind: .client,
            backend: context.backendDescription,
            operation: operation
        )
        span.span.updateAttributes { attributes in
            if let collection {
                attributes[StoreSpan.Key.collection] = collection
                attributes[StoreSpan.Key.summary] = operation + " " + collection
            }
            if records > 1 { attributes[StoreSpan.Key.batchSize] = records }
            attributes[StoreSpan.Key.saveOption] = option.description
            if let durability = context.backendDescription.durability {
                attributes[StoreSpan.Key.durability] = durability
            }
            attributes[StoreSpan.Key.inserts] = inserts
            attributes[StoreSpan.Key.updates] = updates
            attributes[StoreSpan.Key.deletes] = deletes
            for changes in batch.entities where !changes.isEmpty {
                attributes[StoreSpan.Key.recordsPrefix + changes.entity.name] =
                    changes.inserts.count + changes.updates.count + changes.deletes.count
            }
        }
        return span
    }

    /// A client span `{operation} {entity}` with the entity as collection and query summary.
    private func startSpan(_ operation: String, entity: String) -> StoreSpan? {
        guard let tracer = context.tracer else { return nil }
        let summary = operation + " " + entity
        let span = StoreSpan(
            tracer: tracer,
            name: summary,
            context: ServiceContext.current ?? .topLevel,
            kind: .client,
            backend: context.backendDescription,
            operation: operation
        )
        span.span.updateAttributes { attributes in
            attributes[StoreSpan.Key.collection] = entity
            attributes[StoreSpan.Key.summary] = summary
        }
        return span
    }
}

extension StorePredicate {
    /// The predicate's shape, with `?` in place of every value (`plate = ? AND modelYear > ?`); `nil` for the
    /// predicate that matches everything.
    var shape: String? {
        if case .constant(true) = self { return nil }
        return shapeText(nested: false)
    }

    private func shapeText(nested: Bool) -> String {
        switch self {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .comparison(let column, let comparison, _):
            return column.name + " " + comparison.rawValue + " ?"
        case .isNull(let column):
            return column.name + " IS NULL"
        case .isNotNull(let column):
            return column.name + " IS NOT NULL"
        case .isIn(let column, _):
            return column.name + " IN (?)"
        case .hasPrefix(let column, _):
            return column.name + " STARTS WITH ?"
        case .contains(let column, _):
            return column.name + " CONTAINS ?"
        case .and(let operands):
            return Self.join(operands, with: " AND ", empty: "TRUE", nested: nested)
        case .or(let operands):
            return Self.join(operands, with: " OR ", empty: "FALSE", nested: nested)
        case .not(let operand):
            return "NOT " + operand.shapeText(nested: true)
        }
    }

    private static func join(
        _ operands: [StorePredicate],
        with separator: String,
        empty: String,
        nested: Bool
    )
        -> String
    {
        guard operands.count > 1 else { return operands.first?.shapeText(nested: nested) ?? empty }
        let text = operands.map { $0.shapeText(nested: true) }.joined(separator: separator)
        return nested ? "(" + text + ")" : text
    }
}
