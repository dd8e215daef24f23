/// How far a mutating call carries its changes, following Core Data's save semantics.
///
/// Every persistence service keeps an in-memory change set. The save option given to a mutating call decides
/// what happens to that change set once the call's own changes are applied:
///
/// - ``dontSave``: the changes stay pending in this service. It and its children see them;
///   `rollback()` discards them.
/// - ``saveCurrentOnly``: this service's context is saved. For a child service the pending changes move into
///   its parent's pending changes (nothing reaches the store); for the root service they are written to the store.
/// - ``saveAndPersist``: as ``saveCurrentOnly``, then the parent is saved the same way, up to the root, so the
///   changes reach the store in one transaction before the call returns.
public enum SaveOption: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Keep the changes pending in this service.
    case dontSave
    /// Save this service's context only: into the parent for a child service, into the store for the root.
    case saveCurrentOnly
    /// Save this service and every ancestor, so the changes reach the store.
    case saveAndPersist

    /// Whether a service at the given depth writes to the store when saving with this option.
    ///
    /// - Parameter depth: 0 for the root service, 1 for its children, and so on.
    public func reachesStore(fromDepth depth: Int) -> Bool {
        switch self {
        case .dontSave: false
        case .saveCurrentOnly: depth == 0
        case .saveAndPersist: true
        }
    }

    /// The option the parent is saved with after this service saved, or `nil` when the save stops here.
    public var parentOption: SaveOption? {
        switch self {
        case .dontSave, .saveCurrentOnly: nil
        case .saveAndPersist: .saveAndPersist
        }
    }

    public var description: String {
        switch self {
        case .dontSave: "dontSave"
        case .saveCurrentOnly: "saveCurrentOnly"
        case .saveAndPersist: "saveAndPersist"
        }
    }
}
