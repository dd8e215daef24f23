/// The requests in flight under a ``DuplicatePolicy`` other than ``DuplicatePolicy/allow``, without I/O: who leads
/// a shared request, who joins it, who is rejected, and when a shared request is left by everyone and must be
/// cancelled. The ``DuplicateRequestMiddleware`` runs the requests and resumes the waiters.
struct InFlightRegistry<Key: Hashable, Waiter, Handle> {
    /// What an arriving request does.
    enum Arrival: Equatable {
        /// Send the request and share its response (`entry` names the shared request).
        case lead(entry: UInt64)
        /// Wait for the shared request `entry`.
        case join(entry: UInt64)
        /// Send the request alone, registered so that duplicates can be rejected (`entry` to leave it again).
        case exclusive(entry: UInt64)
        /// Send the request alone, unregistered: an identical request is in flight but cannot be shared.
        case bypass
        /// Fail: an identical request is in flight.
        case reject
    }

    private enum Entry {
        case exclusive(id: UInt64)
        case shared(id: UInt64, waiters: [UInt64: Waiter], handle: Handle?)

        var id: UInt64 {
            switch self {
            case .exclusive(let id), .shared(let id, _, _): id
            }
        }
    }

    private var entries: [Key: Entry] = [:]
    private var nextID: UInt64 = 0

    /// How many distinct requests are in flight.
    var count: Int { entries.count }

    /// A request arrives; `value` (given when `coalescing`) is kept when it leads or joins a shared request.
    mutating func arrive(_ key: Key, coalescing: Bool, waiter: UInt64, _ value: Waiter?) -> Arrival {
        switch entries[key] {
        case .some(.shared(let id, var waiters, let handle)):
            guard coalescing, let value else { return .reject }
            waiters[waiter] = value
            entries[key] = .shared(id: id, waiters: waiters, handle: handle)
            return .join(entry: id)
        case .some(.exclusive):
            return coalescing ? .bypass : .reject
        case .none:
            nextID += 1
            if coalescing, let value {
                entries[key] = .shared(id: nextID, waiters: [waiter: value], handle: nil)
                return .lead(entry: nextID)
            }
            entries[key] = .exclusive(id: nextID)
            return .exclusive(entry: nextID)
        }
    }

    /// Keeps the handle of a shared request's work; returns `false` when everyone has left already (the caller
    /// then cancels the work itself).
    mutating func attach(_ handle: Handle, to key: Key, entry: UInt64) -> Bool {
        guard case .shared(let id, let waiters, nil) = entries[key], id == entry else { return false }
        entries[key] = .shared(id: id, waiters: waiters, handle: handle)
        return true
    }

    /// An exclusive request's response head arrived (or it failed): duplicates are no longer rejected.
    mutating func finishExclusive(_ key: Key, entry: UInt64) {
        if case .exclusive(let id) = entries[key], id == entry { entries[key] = nil }
    }

    /// The shared request ended: returns everyone waiting for its outcome.
    mutating func finishShared(_ key: Key, entry: UInt64) -> [Waiter] {
        guard case .shared(let id, let waiters, _) = entries[key], id == entry else { return [] }
        entries[key] = nil
        return Array(waiters.values)
    }

    /// A waiter leaves (its task was cancelled): returns it, when it was still waiting, and the handle of the
    /// shared work when it was the last one, which must then be cancelled.
    mutating func leave(_ key: Key, entry: UInt64, waiter: UInt64) -> (waiter: Waiter?, cancel: Handle?) {
        guard case .shared(let id, var waiters, let handle) = entries[key], id == entry else { return (nil, nil) }
        let left = waiters.removeValue(forKey: waiter)
        guard waiters.isEmpty else {
            entries[key] = .shared(id: id, waiters: waiters, handle: handle)
            return (left, nil)
        }
        entries[key] = nil
        return (left, handle)
    }
}
