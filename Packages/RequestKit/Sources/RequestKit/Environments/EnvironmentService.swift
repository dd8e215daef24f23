import Synchronization

/// Named environments with one of them current, switchable at run time.
///
/// ```swift
/// let environments = try EnvironmentService(
///     [ServiceEnvironment(name: "production", baseURL: "https://api.example.com/"),
///      ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:8080/")],
///     current: "production")
/// try environments.switchTo("local")
/// ```
///
/// Requests read the current environment when they are sent, so a switch affects every request sent after it.
/// What happens to requests already in flight is the client's ``InFlightPolicy``.
public final class EnvironmentService: EnvironmentProvider {
    private struct State {
        var current: ServiceEnvironment
        var subscribers: [Int: AsyncStream<ServiceEnvironment>.Continuation] = [:]
        var nextSubscriber = 0
    }

    /// The environments this service knows, in the order given.
    public let environments: [ServiceEnvironment]
    private let state: Mutex<State>

    /// Creates a service over named environments.
    ///
    /// - Throws: ``RequestKitError/Code/invalidEnvironment`` when the list is empty, names repeat, or `current`
    ///   names none of them.
    public init(_ environments: [ServiceEnvironment], current: String) throws(RequestKitError) {
        var seen = Set<String>()
        for environment in environments where !seen.insert(environment.name).inserted {
            throw .invalidEnvironment(name: environment.name, reason: "the name is used twice")
        }
        guard let first = environments.first(where: { $0.name == current }) else {
            throw .invalidEnvironment(name: current, reason: "no environment has this name")
        }
        self.environments = environments
        self.state = Mutex(State(current: first))
    }

    public var currentEnvironment: ServiceEnvironment {
        state.withLock { $0.current }
    }

    /// Makes the environment named `name` current and tells every change stream.
    ///
    /// Switching to the environment that is already current does nothing and tells no one.
    /// - Throws: ``RequestKitError/Code/invalidEnvironment`` when no environment has this name.
    public func switchTo(_ name: String) throws(RequestKitError) {
        guard let next = environments.first(where: { $0.name == name }) else {
            throw .invalidEnvironment(name: name, reason: "no environment has this name")
        }
        let subscribers: [AsyncStream<ServiceEnvironment>.Continuation]? = state.withLock { state in
            guard state.current != next else { return nil }
            state.current = next
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers ?? [] {
            subscriber.yield(next)
        }
    }

    public func changes() -> AsyncStream<ServiceEnvironment> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ServiceEnvironment.self,
            bufferingPolicy: .bufferingNewest(16)
        )
        let id = state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) {
            subscriber.finish()
        }
    }
}
