/// The process-wide lock and condition that guard in-flight creations and the wait-for graph.
///
/// Only slow paths take it: creating a shared instance, waiting for one, weak and scoped reads. Resolving an
/// already-created singleton never does.
enum Coordinator {
    static let lock = PThreadLock()

    /// Finds the cycle that waiting for `entry` (being created by `owner`) would close, if any.
    ///
    /// Call with `lock` held. Follows owner → what the owner waits for → its owner … and returns the full path
    /// when the walk comes back to `waiter`.
    static func cycle(
        waiter: ResolutionChain,
        waiterNode: ResolutionNode?,
        entry: Entry,
        owner: ResolutionChain
    ) -> [Entry]? {
        var path = waiterNode.path
        path.append(entry)
        var target = entry
        var chain = owner
        var steps = 0
        while steps < 10_000 {
            steps += 1
            guard let next = chain.waitingFor, let node = chain.waitingNode else { return nil }
            let segment = node.path
            if let index = segment.firstIndex(where: { $0 === target }) {
                path.append(contentsOf: segment[(index + 1)...])
            } else {
                path.append(contentsOf: segment)
            }
            path.append(next)
            guard let nextOwner = next.creatingChain else { return nil }
            if nextOwner === waiter { return path }
            target = next
            chain = nextOwner
        }
        return nil
    }
}
