/// The requests in flight of a ``CoalescingMiddleware``, without I/O: who leads a shared request, who joins it, who
/// is rejected, and when a shared request is left by everyone and must be cancelled.
struct InFlightRequests<Key: Hashable, Waiter, Handle> {
    enum Arrival: Equatable {
        case lead(entry: UInt64)
        case join(entry: UInt64)
        case exclusive(entry: UInt64)
        case bypass
        case reject
    }

    private enum Entry {
        case exclusive(id: UInt64)
        case shared(id: UInt64, waiters: [UInt64: Waiter], handle: Handle?)
    }

    private var entries: [Key: Entry] = [:]
    private var lastID: UInt64 = 0

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
            lastID += 1
            if coalescing, let value {
                entries[key] = .shared(id: lastID, waiters: [waiter: value], handle: nil)
                return .lead(entry: lastID)
            }
            entries[key] = .exclusive(id: lastID)
            return .exclusive(entry: lastID)
        }
    }

    mutating func attach(_ handle: Handle, to key: Key, entry: UInt64) -> Bool {
        guard case .shared(let id, let waiters, nil) = entries[key], id == entry else { return false }
        entries[key] = .shared(id: id, waiters: waiters, handle: handle)
        return true
    }

    mutating func finishExclusive(_ key: Key, entry: UInt64) {
        if case .exclusive(let id) = entries[key], id == entry { entries[key] = nil }
    }

    mutating func finishShared(_ key: Key, entry: UInt64) -> [Waiter] {
        guard case .shared(let id, let waiters, _) = entries[key], id == entry else { return [] }
        entries[key] = nil
        return Array(waiters.values)
    }

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
