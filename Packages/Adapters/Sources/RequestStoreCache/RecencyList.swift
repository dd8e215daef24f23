/// Values by key in the order they were last used, the least recently used first.
///
/// Finding a value, using it (which makes it the newest), adding one and removing one each take constant time, and
/// the oldest are read first without sorting anything: a cache bounded by least-recent use makes room by taking
/// values from the front, however large it is. The order is a doubly linked list threaded through one dense array
/// of nodes, with a dictionary from each key to its node; a removed node's place is taken by the last node.
struct RecencyList<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        var value: Value
        /// The position of the node used just before this one, or `-1` for the oldest.
        var older: Int
        /// The position of the node used just after this one, or `-1` for the newest.
        var newer: Int
    }

    private var positions: [Key: Int]
    private var nodes: [Node]
    private var oldestPosition = -1
    private var newestPosition = -1

    init(minimumCapacity: Int = 0) {
        positions = Dictionary(minimumCapacity: minimumCapacity)
        nodes = []
        nodes.reserveCapacity(minimumCapacity)
    }

    var count: Int { nodes.count }
    var isEmpty: Bool { nodes.isEmpty }

    /// The value of `key`; reading it is not a use.
    subscript(key: Key) -> Value? {
        guard let position = positions[key] else { return nil }
        return nodes[position].value
    }

    func contains(_ key: Key) -> Bool {
        positions[key] != nil
    }

    /// The least recently used key and its value.
    var oldest: (key: Key, value: Value)? {
        guard oldestPosition >= 0 else { return nil }
        return (nodes[oldestPosition].key, nodes[oldestPosition].value)
    }

    /// Changes the value of `key` in place, without counting as a use; `nil` when there is no such key.
    mutating func modify<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let position = positions[key] else { return nil }
        return body(&nodes[position].value)
    }

    /// Makes `key` the most recently used; `false` when there is no such key.
    @discardableResult
    mutating func use(_ key: Key) -> Bool {
        guard let position = positions[key] else { return false }
        makeNewest(position)
        return true
    }

    /// Changes the value of `key` in place and makes it the most recently used; `nil` when there is no such key.
    mutating func use<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let position = positions[key] else { return nil }
        makeNewest(position)
        return body(&nodes[position].value)
    }

    /// Sets the value of `key` and makes it the most recently used; returns the value it replaces.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        if let position = positions[key] {
            makeNewest(position)
            let old = nodes[position].value
            nodes[position].value = value
            return old
        }
        let position = nodes.count
        nodes.append(Node(key: key, value: value, older: newestPosition, newer: -1))
        positions[key] = position
        if newestPosition >= 0 { nodes[newestPosition].newer = position } else { oldestPosition = position }
        newestPosition = position
        return nil
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        unlink(position)
        let last = nodes.count - 1
        if position != last {
            // The last node moves into the freed place: its neighbours and its key follow it.
            nodes.swapAt(position, last)
            let moved = nodes[position]
            if moved.older >= 0 { nodes[moved.older].newer = position } else { oldestPosition = position }
            if moved.newer >= 0 { nodes[moved.newer].older = position } else { newestPosition = position }
            positions[moved.key] = position
        }
        return nodes.removeLast().value
    }

    /// Removes the least recently used key; returns it with its value.
    mutating func removeOldest() -> (key: Key, value: Value)? {
        guard let (key, _) = oldest, let value = removeValue(forKey: key) else { return nil }
        return (key, value)
    }

    mutating func removeAll() {
        positions.removeAll()
        nodes.removeAll()
        oldestPosition = -1
        newestPosition = -1
    }

    /// The keys and values from the least recently used to the most.
    var oldestFirst: OldestFirst { OldestFirst(nodes: nodes, position: oldestPosition) }

    struct OldestFirst: Sequence, IteratorProtocol {
        fileprivate let nodes: [Node]
        fileprivate var position: Int

        mutating func next() -> (key: Key, value: Value)? {
            guard position >= 0 else { return nil }
            let node = nodes[position]
            position = node.newer
            return (node.key, node.value)
        }
    }

    private mutating func makeNewest(_ position: Int) {
        guard position != newestPosition else { return }
        unlink(position)
        nodes[position].older = newestPosition
        nodes[position].newer = -1
        if newestPosition >= 0 { nodes[newestPosition].newer = position } else { oldestPosition = position }
        newestPosition = position
    }

    private mutating func unlink(_ position: Int) {
        let older = nodes[position].older
        let newer = nodes[position].newer
        if older >= 0 { nodes[older].newer = newer } else { oldestPosition = newer }
        if newer >= 0 { nodes[newer].older = older } else { newestPosition = older }
    }
}

extension RecencyList: Sendable where Key: Sendable, Value: Sendable {}

extension RecencyList.Node: Sendable where Key: Sendable, Value: Sendable {}
