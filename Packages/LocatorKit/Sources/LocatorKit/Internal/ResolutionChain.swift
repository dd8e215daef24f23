/// A sequential strand of resolution: one root resolve on one thread, or one asynchronous creation task.
///
/// Chains are the vertices of the wait-for graph: a chain that waits for an in-flight creation records what it
/// waits for, so a waiter can detect that the owner of a creation is (transitively) waiting for the waiter itself.
final class ResolutionChain: @unchecked Sendable {
    // @unchecked Sendable: `waitingFor`, `waitingNode` and `graphInstances` are only read and written while
    // holding `Coordinator.lock`; `graphHome` is immutable.
    var waitingFor: Entry?
    var waitingNode: ResolutionNode?
    private var graphInstances: [ObjectIdentifier: any Sendable] = [:]
    private let graphHome: ResolutionChain?

    init(graphHome: ResolutionChain? = nil) {
        self.graphHome = graphHome?.graphHome ?? graphHome
    }

    /// The graph-lifetime instance of `entry` in this root resolve; call with `Coordinator.lock` held.
    func graphInstance(for entry: Entry) -> (any Sendable)? {
        if let graphHome { return graphHome.graphInstance(for: entry) }
        return graphInstances[ObjectIdentifier(entry)]
    }

    /// Remembers a graph-lifetime instance for the rest of this root resolve; call with `Coordinator.lock` held.
    func setGraphInstance(_ instance: any Sendable, for entry: Entry) {
        if let graphHome {
            graphHome.setGraphInstance(instance, for: entry)
        } else {
            graphInstances[ObjectIdentifier(entry)] = instance
        }
    }
}
