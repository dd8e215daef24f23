/// The single-flight refresh of a credential, without I/O: which credential a request uses, when a refresh starts,
/// and who waits for it. The ``AuthenticationMiddleware`` runs the refreshes and resumes the waiters.
struct RefreshStateMachine<Credential: Equatable, Waiter> {
    /// What a request does next.
    enum Action {
        /// Send with this credential.
        case use(Credential)
        /// Start a refresh of `rejected`, then wait for it like the others.
        case startRefresh(rejected: Credential?)
        /// Wait for the refresh running now.
        case wait
    }

    private(set) var current: Credential?
    private(set) var isRefreshing = false
    private var waiters: [UInt64: Waiter] = [:]

    init(initial: Credential?) {
        current = initial
    }

    /// The credential for a request about to be sent, when one can be used at once.
    var usable: Credential? { isRefreshing ? nil : current }

    /// A request needs a credential: a first one (`rejected == nil`), or a new one after the server refused
    /// `rejected`. When the action is ``Action/startRefresh(rejected:)`` or ``Action/wait``, `waiter` is kept until
    /// the refresh ends.
    mutating func credential(replacing rejected: Credential??, waiter: Waiter, id: UInt64) -> Action {
        if !isRefreshing, let current {
            // A first credential, or one that was replaced since the request was sent with it: no refresh.
            guard case .some(let refused) = rejected, refused == current else { return .use(current) }
        }
        waiters[id] = waiter
        if isRefreshing { return .wait }
        isRefreshing = true
        return .startRefresh(rejected: current)
    }

    /// A waiter gave up (its task was cancelled); returns it if it was still waiting.
    mutating func remove(_ id: UInt64) -> Waiter? {
        waiters.removeValue(forKey: id)
    }

    /// The refresh ended with `credential` (`nil` when it failed); returns everyone to resume.
    mutating func refreshEnded(with credential: Credential?) -> [Waiter] {
        if let credential { current = credential }
        isRefreshing = false
        defer { waiters = [:] }
        return Array(waiters.values)
    }
}
