/// One step of a resolution path: the registration whose factory is running, linked to the step that asked for it.
///
/// Nodes are immutable, so a resolver can be used from several tasks at once and a path can be read by any
/// thread without locking.
final class ResolutionNode: Sendable {
    let entry: Entry
    let parent: ResolutionNode?
    let chain: ResolutionChain

    init(entry: Entry, parent: ResolutionNode?, chain: ResolutionChain) {
        self.entry = entry
        self.parent = parent
        self.chain = chain
    }

    @TaskLocal static var currentTask: ResolutionNode?

    /// Whether `entry` is already being built on this path.
    func contains(_ entry: Entry) -> Bool {
        var node: ResolutionNode? = self
        while let current = node {
            if current.entry === entry { return true }
            node = current.parent
        }
        return false
    }

    /// The entries from the root resolve to this node.
    var path: [Entry] {
        var entries: [Entry] = []
        var node: ResolutionNode? = self
        while let current = node {
            entries.append(current.entry)
            node = current.parent
        }
        return entries.reversed()
    }
}

extension Optional where Wrapped == ResolutionNode {
    /// The path of an optional node, empty for a root resolve.
    var path: [Entry] { self?.path ?? [] }
}
