/// One step of a resolution path: the registration whose factory is running, linked to the step that asked for it.
///
/// The path links are immutable, so a resolver can be used from several tasks at once and a path can be read by
/// any thread without locking.
final class ResolutionNode: @unchecked Sendable {
    // @unchecked Sendable: `entry`, `parent`, `recorder` and `startsStrand` are immutable; `strandState` is only
    // read and written while holding `Coordinator.lock` (or before the node is shared).
    let entry: Entry
    let parent: ResolutionNode?
    /// Where the keys resolved by this step's factory are recorded: the recorder of the shared construction this
    /// step belongs to, if any.
    let recorder: DependencyRecorder?
    /// Whether this node is the first of its strand (a root resolve, or an asynchronous creation task).
    private let startsStrand: Bool
    private var strandState: ResolutionChain?

    /// A node on its parent's strand, or the first node of a new strand when `newStrand` is set (then graph
    /// instances are still shared with the parent's strand).
    init(entry: Entry, parent: ResolutionNode?, newStrand: Bool = false, recorder: DependencyRecorder?) {
        self.entry = entry
        self.parent = parent
        self.recorder = recorder
        self.startsStrand = newStrand || parent == nil
        if newStrand {
            strandState = ResolutionChain(graphHome: parent)
        }
    }

    /// The strand's shared state, made on first use; call with `Coordinator.lock` held.
    var chain: ResolutionChain {
        var root = self
        while !root.startsStrand, let parent = root.parent {
            root = parent
        }
        return root.ownChain
    }

    private var ownChain: ResolutionChain {
        if let strandState { return strandState }
        let made = ResolutionChain(graphHome: nil)
        strandState = made
        return made
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
