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

    init(client: PostgresClient, maximumConnections: Int?) {
        self.client = client
        self.status = Locked(PostgresPoolStatus(maximumConnections: maximumConnections))
    }

    var current: PostgresPoolStatus { status.withLock { $0 } }

    /// Runs `body` with a pooled connection, counted while it waits for one and while it holds it.
    func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let asked = ContinuousClock.now
        status.withLock { $0.waitingForConnection += 1 }
        var leased = false
        defer {
            status.withLock { status in
                if leased {
                    status.connectionsInUse -= 1
                } else {
                    status.waitingForConnection -= 1
                    status.failedLeasesTotal += 1
                    status.waitingTimeTotal += ContinuousClock.now - asked
                }
            }
        }
        return try await client.withConnection(isolation: isolation) { connection in
            let waited = ContinuousClock.now - asked
            status.withLock { status in
                status.waitingForConnection -= 1
                status.connectionsInUse += 1
                status.leasesTotal += 1
                status.waitingTimeTotal += waited
            }
            leased = true
            return try await body(connection)
        }
    }
}
