import LocatorKit
public import Logging
public import ServiceLifecycle
import Synchronization

/// What the modules of one locator have started, in the order they started it: the services that close each
/// store and connection pool on graceful shutdown.
///
/// A module registers this once per locator. Each stack a module makes (a ``StoreStack``, a
/// ``RequestClientStack``) adds its ``ModuleLifecycleService`` here when it is created, which is always after what
/// it depends on was created. A `ServiceGroup` shuts its services down in reverse order, so listing ``services``
/// first and your own services after them closes the stores and pools last, once the work that uses them is done:
///
/// ```swift
/// let client = try await locator.resolve(RequestClient.self)   // creates what the app needs first
/// let group = ServiceGroup(
///     services: try locator.resolve(ModuleLifecycles.self).services + [MyWorker(client: client)],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// ```
///
/// Without a service group (a command-line tool), call ``shutdown()`` before the process exits.
public final class ModuleLifecycles: Sendable {
    private let started = Mutex<[ModuleLifecycleService]>([])

    /// An empty list; modules add to it as their stacks are created.
    public init() {}

    /// The lifecycle services started so far, in the order they started: give them to a `ServiceGroup` before the
    /// services that use them.
    public var services: [any Service] { started.withLock { $0 } }

    /// What was started so far, by label (`store "audit"`, `client`), in the order it started.
    public var labels: [String] { started.withLock { $0.map(\.label) } }

    /// Adds a service that closes something on graceful shutdown; ``shutdown()`` closes it before what was added
    /// earlier.
    public func append(_ service: ModuleLifecycleService) {
        started.withLock { $0.append(service) }
    }

    /// Closes everything started, the last started first, and waits for each; for programs that run no service
    /// group. Every close is attempted; the first error is thrown after the others ran. Closing twice does nothing.
    public func shutdown() async throws {
        var firstError: (any Error)?
        for service in started.withLock({ $0 }).reversed() {
            do {
                try await service.close()
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}

/// A swift-service-lifecycle `Service` that holds one resource open while the group runs and closes it on graceful
/// shutdown (or cancellation). It closes at most once, whether through ``run()`` or ``close()``.
public struct ModuleLifecycleService: Service, CustomStringConvertible {
    /// What it closes: `store`, `client "billing"`.
    public let label: String
    private let once: CloseOnce
    private let logger: Logger?

    /// A service that runs `close` once, when the group shuts down.
    public init(label: String, logger: Logger? = nil, close: @escaping @Sendable () async throws -> Void) {
        self.label = label
        self.logger = logger
        once = CloseOnce(close)
    }

    public var description: String { label }

    /// Waits for graceful shutdown or cancellation, then closes.
    public func run() async throws {
        try? await gracefulShutdown()
        // What is closed may write (a SQLite store checkpoints its log), and some writers refuse to start in a
        // cancelled task; a detached task does not inherit the group's cancellation.
        let once = once
        try await Task.detached { try await once.run() }.value
        // At debug: what it closes usually says so itself (a store logs "closed store" with its location).
        logger?.debug("\(label) closed")
    }

    /// Closes now, if it was not closed yet.
    public func close() async throws {
        try await once.run()
    }
}

/// Runs a closing function once; later callers wait for the first one and see its outcome.
final class CloseOnce: Sendable {
    private let state = Mutex<State>(.open)
    private let body: @Sendable () async throws -> Void

    private enum State {
        case open
        case closing(Task<Void, any Error>)
    }

    init(_ body: @escaping @Sendable () async throws -> Void) {
        self.body = body
    }

    func run() async throws {
        let task = state.withLock { state -> Task<Void, any Error> in
            switch state {
            case .open:
                let body = body
                let task = Task.detached { try await body() }
                state = .closing(task)
                return task
            case .closing(let task):
                return task
            }
        }
        try await task.value
    }
}

extension ModuleLifecycles {
    /// Registers an empty list in `locator` unless it (or an ancestor) has one; every module calls it.
    static func register(in locator: Locator) throws(LocatorError) {
        guard !locator.isRegistered(ModuleLifecycles.self) else { return }
        try locator.register(ModuleLifecycles())
    }
}
