/// What a service does when its changes meet other changes to the same records: a commit finding records changed
/// or deleted in the store since they were read, or a child's save finding that a sibling saved other values of
/// the same columns into their parent first.
///
/// Every write carries the revision the record was read at; a mismatch is a conflict. Changes are compared column
/// by column: two changes to different columns of one record never conflict; they are both kept. The policies
/// follow Core Data's merge policies, with the parent service in the store's place when a child saves into it:
///
/// | policy | a column both changed | a record deleted in the store (or the parent) that we updated | a record changed there that we deleted |
/// |---|---|---|---|
/// | ``error`` | ``StoreError/Code/conflict`` naming every such record; nothing is written or moved | conflict | conflict |
/// | ``oursWins`` | our value | stays deleted: our update is dropped | deleted |
/// | ``storeWins`` | the stored value; our other columns are written | stays deleted: our update is dropped | kept, with the stored values |
/// | ``overwrite`` | our whole record, every column | re-inserted with our whole record | deleted |
/// | ``rollback`` | our change to that record is dropped | stays deleted | kept |
///
/// Under every policy but ``error`` the rest of the save goes through.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// Fail with ``StoreError/Code/conflict`` naming the records; nothing is written and the changes stay pending
    /// in the service that saved.
    case error
    /// Property by property, our changed columns win; columns we did not change keep the store's values. A record
    /// deleted in the store stays deleted.
    case oursWins
    /// Property by property, the store wins: a column the store changed since we read it keeps the store's
    /// value; our other changes are written. A record deleted by us but changed in the store is kept; a record
    /// deleted in the store stays deleted.
    case storeWins
    /// Our whole record replaces the stored one (re-inserted if the store deleted it).
    case overwrite
    /// Our changes to conflicting records are discarded; the rest is written.
    case rollback
}
