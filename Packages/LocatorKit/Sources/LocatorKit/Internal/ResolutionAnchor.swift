/// Where a ``Resolver`` sits on the resolution path: a heap node, or a synchronous factory's stack frame whose
/// node is made only if a nested resolve needs it.
enum ResolutionAnchor: @unchecked Sendable {
    // @unchecked Sendable: the frame address is only dereferenced after `ThreadContext` found it among the current
    // thread's live frames; from any other thread, or after the frame ended, it is never read.
    case node(ResolutionNode)
    case frame(UnsafeMutableRawPointer)

    /// The node for this position, or nil when the frame is not live on this thread (the resolve then starts a
    /// new path, which is memory-safe but loses the path for cycle reports).
    var node: ResolutionNode? {
        switch self {
        case .node(let node): node
        case .frame(let frame): ThreadContext.node(forFrame: frame)
        }
    }
}
