import HTTPTypes
public import Metrics

/// Records requests through swift-metrics, dimensioned by operation and status.
///
/// Records a timer `<label>.duration` and a counter `<label>.requests`, both with the dimensions `operation`,
/// `method` and `status` (the status code, or `error` when no response arrived), and a counter
/// `<label>.bytes_received`. With a ``RetryPolicy``, a counter `<label>.retries` counts the attempts that were
/// retried, with the same dimensions (the status or `error` of the failed attempt). A counter `<label>.replays`
/// counts the requests the server did not process that went out again, by `operation` and `method`. A meter
/// `<label>.in_flight` counts the requests started and not yet finished, all of them in one value; a counter
/// `<label>.attempts` counts every attempt told to ``requestAttemptFinished(_:)`` (with a ``RetryPolicy``), and a
/// counter `<label>.cache` counts what the HTTP cache did, by `operation` and `result` (`hit`, `stale`,
/// `revalidated`, `miss` or `bypass`).
public struct MetricsObserver: RequestObserver {
    private let label: String
    private let factory: any MetricsFactory
    /// One meter for the observer's life: a meter made per event would start from zero with some backends.
    private let inFlight: Meter

    /// Creates an observer recording under `label` (default `requestkit`) through `factory` (by default the
    /// factory the application bootstrapped `MetricsSystem` with).
    public init(label: String = "requestkit", factory: (any MetricsFactory)? = nil) {
        self.label = label
        self.factory = factory ?? MetricsSystem.factory
        self.inFlight = Meter(label: "\(label).in_flight", factory: self.factory)
    }

    public func requestStarted(_ event: RequestStarted) {
        inFlight.increment()
    }

    public func requestAttemptFinished(_ event: RequestAttemptFinished) {
        let dimensions = [
            ("operation", event.operation),
            ("method", event.method.rawValue),
            ("status", event.status.map(String.init) ?? "error"),
        ]
        Counter(label: "\(label).attempts", dimensions: dimensions, factory: factory).increment()
        guard event.retryDelay != nil else { return }
        Counter(label: "\(label).retries", dimensions: dimensions, factory: factory).increment()
    }

    public func requestReplayed(_ event: RequestReplayed) {
        let dimensions = [("operation", event.operation), ("method", event.method.rawValue)]
        Counter(label: "\(label).replays", dimensions: dimensions, factory: factory).increment()
    }

    public func requestFinished(_ event: RequestFinished) {
        inFlight.decrement()
        if let result = event.cacheResult {
            let cache = [("operation", event.operation), ("result", result)]
            Counter(label: "\(label).cache", dimensions: cache, factory: factory).increment()
        }
        let dimensions = [
            ("operation", event.operation),
            ("method", event.method.rawValue),
            ("status", event.status.map(String.init) ?? "error"),
        ]
        let (seconds, attoseconds) = event.duration.components
        Timer(label: "\(label).duration", dimensions: dimensions, factory: factory)
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        Counter(label: "\(label).requests", dimensions: dimensions, factory: factory).increment()
        Counter(label: "\(label).bytes_received", dimensions: dimensions, factory: factory)
            .increment(by: Int(event.bytesReceived))
    }
}
