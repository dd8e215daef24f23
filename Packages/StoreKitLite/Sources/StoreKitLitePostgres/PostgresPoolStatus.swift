import PostgresNIO
import StoreKitLite

/// How a ``PostgresBackend`` uses its client's connection pool: the figures a server exports as metrics to see
/// whether the pool is large enough.
///
/// The backend counts its own leases of pooled connections (each read, each transaction, and one held for as long
/// as the backend follows other processes' commits). `PostgresClient` does not report how many connections it has
/// open, so these figures describe demand, not the sockets behind it. Other code sharing the same client is not
/// counted.
public struct PostgresPoolStatus: Sendable, Hashable {
    /// The most connections the pool opens, when the backend made the client itself; `nil` for a client you run.
    public var maximumConnections: Int?
    /// Connections the backend holds now.
    public var connectionsInUse: Int
    /// Operations of the backend waiting now for the pool to hand them a connection.
    public var waitingForConnection: Int
    /// Connections the backend has been handed since it was made.
    public var leasesTotal: Int
    /// Requests for a connection that failed (the pool could not connect, or the operation was cancelled while
    /// waiting).
    public var failedLeasesTotal: Int
    /// The time operations have spent waiting for a connection, added up since the backend was made.
    public var waitingTimeTotal: Duration

    public init(
        maximumConnections: Int? = nil,
        connectionsInUse: Int = 0,
        waitingForConnection: Int = 0,
        leasesTotal: Int = 0,
        failedLeasesTotal: Int = 0,
        waitingTimeTotal: Duration = .zero
    ) {
        self.maximumConnections = maximumConnections
        self.connectionsInUse = connectionsInUse
        self.waitingForConnection = waitingForConnection
        self.leasesTotal = leasesTotal
        self.failedLeasesTotal = failedLeasesTotal
        self.waitingTimeTotal = waitingTimeTotal
    }
}

/// A `PostgresClient` and the count of the backend's leases of its connections: every connection the backend uses
/// is leased through here.
final class PostgresPool: Sendable {
    let client: PostgresClient
    private let status: Locked<PostgresPoolStatus>
    /// For each connection seen open, what to do if it closes while leased: one close callback per connection for
    /// its whole life (never one per lease, which would pile up on a long-lived connection).
    private let watches = Locked<[PostgresConnection.ID: @Sendable () -> Void]>([:])

    init(client: PostgresClient, maximumConnections: Int?) {
        self.client = client
        self.status = Locked(PostgresPoolStatus(maximumConnections: maximumConnections))
    }

    var current: PostgresPoolStatus { status.withLock { $0 } }

    /// How long an operation may go on after its connection closed before it is given up for lost: long enough for
    /// PostgresNIO to fail it with the server's own error, which says more.
    static let closedConnectionGrace: Duration = .seconds(1)

    /// Runs `body` with a pooled connection, counted while it waits for one and while it holds it.
    ///
    /// If the connection closes while `body` runs (the server ended the session, or restarted) and `body` has not
    /// ended ``closedConnectionGrace`` later, the call fails with ``StoreKitLite/StoreError/Code/connectionLost``
    /// and the connection goes back to the pool, which drops it: PostgresNIO can leave a statement written to a
    /// channel that has just closed waiting for an answer forever, and a caller must never wait with it.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let asked = ContinuousClock.now
        status.withLock { $0.waitingForConnection += 1 }
        let leased = Locked(false)
        defer {
            let wasLeased = leased.withLock { $0 }
            status.withLock { status in
                if wasLeased {
                    status.connectionsInUse -= 1
                } else {
                    status.waitingForConnection -= 1
                    status.failedLeasesTotal += 1
                    status.waitingTimeTotal += ContinuousClock.now - asked
                }
            }
        }
        return try await client.withConnection { connection in
            let waited = ContinuousClock.now - asked
            status.withLock { status in
                status.waitingForConnection -= 1
                status.connectionsInUse += 1
                status.leasesTotal += 1
                status.waitingTimeTotal += waited
            }
            leased.withLock { $0 = true }
            return try await endingWhenClosed(connection, body)
        }
    }

    /// Runs `body` in a task of its own and returns what it returns, or fails with `connectionLost` once the
    /// connection has been closed for ``closedConnectionGrace`` while `body` still runs (the task is then cancelled
    /// and left to end by itself). Cancelling the caller cancels `body`.
    private func endingWhenClosed<Result: Sendable>(
        _ connection: PostgresConnection,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let outcome = Locked<CheckedContinuation<Result, any Error>?>(nil)
        let work = Locked<Task<Void, Never>?>(nil)
        let giveUp: @Sendable () -> Void = {
            Task {
                try? await Task.sleep(for: Self.closedConnectionGrace)
                guard let continuation = outcome.withLock({ $0.take() }) else { return }
                work.withLock { $0 }?.cancel()
                continuation.resume(
                    throwing: StoreError(
                        .connectionLost,
                        reason: "the connection closed and the statement on it never ended"
                    )
                )
            }
        }
        let id = connection.id
        defer { watches.withLock { if $0[id] != nil { $0[id] = {} } } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                outcome.withLock { $0 = continuation }
                work.withLock { work in
                    work = Task {
                        let result: Swift.Result<Result, any Error>
                        do {
                            result = .success(try await body(connection))
                        } catch {
                            result = .failure(error)
                        }
                        outcome.withLock { $0.take() }?.resume(with: result)
                    }
                }
                // A cancellation that came before the task existed.
                if Task.isCancelled { work.withLock { $0 }?.cancel() }
                let firstLease = watches.withLock { watches in
                    defer { watches[id] = giveUp }
                    return watches[id] == nil
                }
                if firstLease {
                    connection.closeFuture.whenComplete { [watches] _ in
                        watches.withLock { $0.removeValue(forKey: id) }?()
                    }
                }
            }
        } onCancel: {
            work.withLock { $0 }?.cancel()
        }
    }
}
