/// The shared state of a strand of resolution: one root resolve on one thread, or one asynchronous creation task.
///
/// Chains are the vertices of the wait-for graph: a chain that waits for an in-flight creation records what it
/// waits for, so a waiter can detect that the owner of a creation is (transitively) waiting for the waiter itself.
/// A chain is allocated only when a strand first needs one (see ``ResolutionNode/chain``), so a plain transient
/// resolve pays nothing for it.
final class ResolutionChain: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only read and written while holding `Coordinator.lock`.
    var waitingFor: Entry?
    var waitingNode: ResolutionNode?
    private var graphInstances: [ObjectIdentifier: any Sendable] = [:]
    /// Where this strand's graph instances live when the strand was started by another one.
    private let graphHome: ResolutionNode?

    init(graphHome: ResolutionNode?) {
        self.graphHome = graphHome
    }

    /// The graph-lifetime instance of `entry` in this root resolve; call with `Coordinator.lock` held.
    func graphInstance(for entry: Entry) -> (any Sendable)? {
        if let graphHome { return graphHome.chain.graphInstance(for: entry) }
        return graphInstances[ObjectIdentifier(entry)]
    }

    /// Remembers a graph-lifetime instance for the rest of this root resolve; call with `Coordinator.lock` held.
    func setGraphInstance(_ instance: any Sendable, for entry: Entry) {
        if let graphHome {
            graphHome.chain.setGraphInstance(instance, for: entry)
        } else {
            graphInstances[ObjectIdentifier(entry)] = instance
        }
    }
}
