/// What ``PersistenceService/storeVersion()`` returns: two equal values mean that nothing reached the store and no
/// commit of the hierarchy ended between the two readings.
public struct StoreVersion: Sendable, Hashable {
    /// The backend's ``StoreBackend/commitVersion()``.
    let committed: Int64
    /// The hierarchy's ended commits.
    let endedCommits: Int
}
