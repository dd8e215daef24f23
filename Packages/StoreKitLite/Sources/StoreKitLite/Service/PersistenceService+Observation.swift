import ModelKit

extension PersistenceService {
    /// Committed changes to records of one type, one element per commit that touched the type.
    ///
    /// Observation starts when this is called and sees every commit of the backend (from any service of it), and,
    /// when the backend follows its store's change log (``ChangeFeed/allProcesses(pollInterval:retention:)``), the
    /// commits of other processes too, soon after they commit.
    public func changes<R: Record>(of type: R.Type = R.self) -> AsyncStream<StoreChange<R>> {
        changes(matching: Query<R>())
    }

    /// Committed changes to records matching a query's predicate (its order and limit are ignored), one element
    /// per commit that inserted or updated a matching record or deleted a record that matched when last read.
    ///
    /// A commit of another process is matched against its records as they are when it is read; a record it deleted,
    /// or one deleted since, is reported to every query, since its values are gone.
    public func changes<R: Record>(matching query: Query<R>) -> AsyncStream<StoreChange<R>> {
        let source = context.backend.committedChanges()
        let rowQuery = query.rowQuery
        let (stream, continuation) = AsyncStream<StoreChange<R>>.makeStream(bufferingPolicy: .unbounded)
        let task = Task {
            for await batch in source {
                for changes in batch.entities where changes.entity.name == rowQuery.entity.name {
                    // A row read from another process's log with revision 0 carries no values (the record is
                    // gone), so it may have matched.
                    let external = batch.isFromAnotherProcess
                    let matches = { (row: StoreRow) in (external && row.revision == 0) || rowQuery.matches(row) }
                    let inserted = changes.inserts.filter(matches).map { ModelID<R>(uuid: $0.id) }
                    let updated = changes.updates.filter { matches($0.row) }.map { ModelID<R>(uuid: $0.row.id) }
                    let deleted = changes.deletes.filter { matches($0.row) }.map { ModelID<R>(uuid: $0.row.id) }
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
