import ModelKit

extension PersistenceService {
    /// Committed changes to records of one type, one element per commit that touched the type.
    ///
    /// Observation starts when this is called and sees every commit of the backend (from any service of it).
    public func changes<R: Record>(of type: R.Type = R.self) -> AsyncStream<StoreChange<R>> {
        changes(matching: Query<R>())
    }

    /// Committed changes to records matching a query's predicate (its order and limit are ignored), one element
    /// per commit that inserted or updated a matching record or deleted a record that matched when last read.
    public func changes<R: Record>(matching query: Query<R>) -> AsyncStream<StoreChange<R>> {
        let source = context.backend.committedChanges()
        let rowQuery = query.rowQuery
        let (stream, continuation) = AsyncStream<StoreChange<R>>.makeStream(bufferingPolicy: .unbounded)
        let task = Task {
            for await batch in source {
                for changes in batch.entities where changes.entity.name == rowQuery.entity.name {
                    let inserted = changes.inserts.filter(rowQuery.matches).map { ModelID<R>(uuid: $0.id) }
                    let updated = changes.updates.filter { rowQuery.matches($0.row) }.map {
                        ModelID<R>(uuid: $0.row.id)
                    }
                    let deleted = changes.deletes.filter { rowQuery.matches($0.row) }.map {
                        ModelID<R>(uuid: $0.row.id)
                    }
                    if !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty {
                        continuation.yield(StoreChange(inserted: inserted, updated: updated, deleted: deleted))
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
