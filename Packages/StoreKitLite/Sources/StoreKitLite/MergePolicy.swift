/// What a root service does when a commit finds records changed in the store since they were read.
///
/// Every write carries the revision the record was read at; a mismatch is a conflict. The policies follow
/// Core Data's merge policies:
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// Fail with ``StoreError/Kind/conflict`` naming the records; nothing is written and the changes stay pending.
    case error
    /// Property by property, our changed columns win; columns we did not change keep the store's values.
    case oursWins
    /// Property by property, the store wins: a column the store changed since we read it keeps the store's
    /// value; our other changes are written. A record deleted by us but changed in the store is kept.
    case storeWins
    /// Our whole record replaces the stored one (re-inserted if the store deleted it).
    case overwrite
    /// Our changes to conflicting records are discarded; the rest is written.
    case rollback
}
