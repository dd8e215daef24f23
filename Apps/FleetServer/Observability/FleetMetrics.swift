import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import Logging
public import Metrics
import StoreKitLite
import StoreKitLitePostgres
import Synchronization

/// The daemon's metrics, made through an injected swift-metrics factory (Prometheus in `fleetd`), so tests and
/// embedders never need the process-wide `MetricsSystem`.
///
/// - `fleetd_http_requests_total{method, route, status}`: requests answered, by route template (`/v2/vehicles/{id}`,
///   never the raw path, so IDs do not explode the label set).
/// - `fleetd_http_request_duration_seconds{method, route}`: latency histogram.
/// - `fleetd_read_cache_requests_total{result="hit"|"miss"}`, `fleetd_read_cache_entries`,
///   `fleetd_read_cache_bytes`: the ``ReadResponseCache``, brought up to date when `/metrics` is read, so that reads
///   pay nothing for them.
/// - On a store other daemons share (PostgreSQL): `fleetd_change_feed_connected` (1 while the other daemons' writes
///   are followed), `fleetd_change_feed_batches_total` (their commits delivered) and
///   `fleetd_change_feed_last_read_age_seconds`, also brought up to date when `/metrics` is read.
/// - On PostgreSQL, the connection pool as the store uses it: `fleetd_db_pool_connections_in_use`,
///   `fleetd_db_pool_connections_max`, `fleetd_db_pool_waiting` (operations waiting for a connection now),
///   `fleetd_db_pool_leases_total`, `fleetd_db_pool_failed_leases_total` and `fleetd_db_pool_wait_seconds_total`
///   (time spent waiting for a connection). A wait that grows with the load says the pool is too small
///   (`maximumConnections` in the database URL).
public final class FleetMetrics: Sendable {
    private let factory: any MetricsFactory
    /// The cache's hits and misses as last published; counters grow by the difference.
    private let publishedCache = Mutex<(hits: Int, misses: Int)>((0, 0))
    /// The change feed's delivered batches as last published.
    private let publishedBatches = Mutex(0)
    /// The pool's totals as last published; counters grow by the difference.
    private let publishedPool = Mutex(PostgresPoolStatus())
    private let counters = Mutex<[CounterKey: Counter]>([:])
    private let timers = Mutex<[TimerKey: Metrics.Timer]>([:])

    private struct CounterKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private struct TimerKey: Hashable {
        let method: String
        let route: String
    }

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Publishes the read cache's figures.
    func publish(_ cache: ReadResponseCache) {
        let now = cache.statistics
        let (newHits, newMisses) = publishedCache.withLock { published in
            defer { published = (now.hits, now.misses) }
            return (now.hits - published.hits, now.misses - published.misses)
        }
        Counter(label: "fleetd_read_cache_requests_total", dimensions: [("result", "hit")], factory: factory)
            .increment(by: Int64(newHits))
        Counter(label: "fleetd_read_cache_requests_total", dimensions: [("result", "miss")], factory: factory)
            .increment(by: Int64(newMisses))
        Gauge(label: "fleetd_read_cache_entries", factory: factory).record(now.entries)
        Gauge(label: "fleetd_read_cache_bytes", factory: factory).record(now.bytes)
    }

    /// Publishes the change feed's figures, for a store other daemons share.
    func publish(_ store: FleetStore) {
        if let pool = store.postgresPoolStatus { publish(pool) }
        guard let status = store.changeFeedStatus else { return }
        let newBatches = publishedBatches.withLock { published in
            defer { published = status.deliveredBatches }
            return status.deliveredBatches - published
        }
        Gauge(label: "fleetd_change_feed_connected", factory: factory).record(status.isConnected ? 1 : 0)
        Counter(label: "fleetd_change_feed_batches_total", factory: factory).increment(by: Int64(max(0, newBatches)))
        if let lastRead = status.lastRead {
            Gauge(label: "fleetd_change_feed_last_read_age_seconds", factory: factory)
                .record(max(0, Date().timeIntervalSince(lastRead)))
        }
    }

    /// Publishes a PostgreSQL store's pool figures.
    private func publish(_ pool: PostgresPoolStatus) {
        let published = publishedPool.withLock { published in
            defer { published = pool }
            return published
        }
        Gauge(label: "fleetd_db_pool_connections_in_use", factory: factory).record(pool.connectionsInUse)
        if let maximum = pool.maximumConnections {
            Gauge(label: "fleetd_db_pool_connections_max", factory: factory).record(maximum)
        }
        Gauge(label: "fleetd_db_pool_waiting", factory: factory).record(pool.waitingForConnection)
        Counter(label: "fleetd_db_pool_leases_total", factory: factory)
            .increment(by: Int64(max(0, pool.leasesTotal - published.leasesTotal)))
        Counter(label: "fleetd_db_pool_failed_leases_total", factory: factory)
            .increment(by: Int64(max(0, pool.failedLeasesTotal - published.failedLeasesTotal)))
        FloatingPointCounter(label: "fleetd_db_pool_wait_seconds_total", factory: factory)
            .increment(by: max(0, Self.seconds(pool.waitingTimeTotal - published.waitingTimeTotal)))
    }

    /// What each metric means, as `/metrics` states it in a `# HELP` line (swift-metrics has no place for it).
    static let help: [String: String] = [
        "fleetd_http_requests_total": "HTTP requests answered, by method, route template and status.",
        "fleetd_http_request_duration_seconds":
            "Time from a request's head to its answer, by method and route template.",
        "fleetd_read_cache_requests_total": "Reads looked up in the read cache, by result (hit or miss).",
        "fleetd_read_cache_entries": "Answers held in the read cache.",
        "fleetd_read_cache_bytes": "Bytes held in the read cache (bodies and header fields).",
        "fleetd_change_feed_connected": "1 while the writes of the other daemons sharing the store are followed.",
        "fleetd_change_feed_batches_total": "Commits of other daemons delivered by the change feed.",
        "fleetd_change_feed_last_read_age_seconds": "Seconds since the change feed last read the change log.",
        "fleetd_db_pool_connections_in_use": "Database connections leased to operations now.",
        "fleetd_db_pool_connections_max": "Database connections the pool may open.",
        "fleetd_db_pool_waiting": "Operations waiting for a database connection now.",
        "fleetd_db_pool_leases_total": "Database connections leased to operations.",
        "fleetd_db_pool_failed_leases_total": "Operations that got no database connection.",
        "fleetd_db_pool_wait_seconds_total": "Time operations spent waiting for a database connection.",
    ]

    /// `exposition` with a `# HELP` line before each `# TYPE` line of a metric ``help`` describes.
    static func withHelp(_ exposition: String) -> String {
        var result = ""
        result.reserveCapacity(exposition.utf8.count + 2048)
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
                let text = help[String(name)]
            {
                result += "# HELP \(name) \(text)\n"
            }
            result += line
            result += "\n"
        }
        if result.hasSuffix("\n\n") { result.removeLast() }
        return result
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    func record(method: HTTPRequest.Method, route: String, status: Int, nanoseconds: UInt64) {
        let counterKey = CounterKey(method: method.rawValue, route: route, status: status)
        let counter = counters.withLock { cache in
            if let counter = cache[counterKey] { return counter }
            let counter = Counter(
                label: "fleetd_http_requests_total",
                dimensions: [("method", counterKey.method), ("route", route), ("status", String(status))],
                factory: factory
            )
            cache[counterKey] = counter
            return counter
        }
        counter.increment()
        let timerKey = TimerKey(method: method.rawValue, route: route)
        let timer = timers.withLock { cache in
            if let timer = cache[timerKey] { return timer }
            let timer = Metrics.Timer(
                label: "fleetd_http_request_duration_seconds",
                dimensions: [("method", timerKey.method), ("route", route)],
                preferredDisplayUnit: .seconds,
                factory: factory
            )
            cache[timerKey] = timer
            return timer
        }
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }
}

/// Records every answered request in ``FleetMetrics``, problems included (it runs outside the problem middleware),
/// and writes the access log: one `debug` entry per request with its method, route template, status, duration and
/// request ID (`--log-level debug` shows it).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: FleetMetrics
    /// Where the access log goes: fleetd's logger, whose level the configuration sets.
    let accessLog: Logger

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        let nanoseconds = DispatchTime.now().uptimeNanoseconds &- start
        // Every template starts with `/`; a request no route matched is named so by the router ("NotFound").
        let route = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched"
        let status = Int(response.status.code)
        metrics.record(method: request.method, route: route, status: status, nanoseconds: nanoseconds)
        if accessLog.logLevel <= .debug {
            accessLog.debug(
                "request",
                metadata: [
                    "http.method": "\(request.method.rawValue)",
                    "http.route": "\(route)",
                    "http.status": "\(status)",
                    "http.duration_ms": "\(Double(nanoseconds / 1000) / 1000)",
                    "http.request_id": context.logger[metadataKey: "hb.request.id"] ?? "-",
                ]
            )
        }
        return response
    }
}
