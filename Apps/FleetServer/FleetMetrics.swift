import Dispatch
import HTTPTypes
import Hummingbird
public import Metrics
import Synchronization

/// The daemon's metrics, made through an injected swift-metrics factory (Prometheus in `fleetd`), so tests and
/// embedders never need the process-wide `MetricsSystem`.
///
/// - `fleetd_http_requests_total{method, route, status}`: requests answered, by route template (`/v2/vehicles/{id}`,
///   never the raw path, so IDs do not explode the label set).
/// - `fleetd_http_request_duration_seconds{method, route}`: latency histogram.
public final class FleetMetrics: Sendable {
    private let factory: any MetricsFactory
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

/// Records every answered request in ``FleetMetrics``, problems included (it runs outside the problem middleware).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: FleetMetrics

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        let route = context.endpointPath ?? "unmatched"
        metrics.record(
            method: request.method,
            route: route,
            status: Int(response.status.code),
            nanoseconds: DispatchTime.now().uptimeNanoseconds &- start
        )
        return response
    }
}
