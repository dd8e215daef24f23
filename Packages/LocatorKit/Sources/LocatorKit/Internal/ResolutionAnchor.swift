/// Where a ``Resolver`` sits on the resolution path: a heap node, or a synchronous factory's frame (named by its
/// serial) whose node is made only if a nested resolve needs it.
enum ResolutionAnchor: Sendable {
    case node(ResolutionNode)
    case frame(UInt64)

    /// The node for this position, or nil when the frame is not live on this thread (the resolve then starts a
    /// new path, which is memory-safe but loses the path for cycle reports).
    var node: ResolutionNode? {
        switch self {
        case .node(let node): node
        case .frame(let serial): ThreadContext.node(forFrame: serial)
        }
    }
}
