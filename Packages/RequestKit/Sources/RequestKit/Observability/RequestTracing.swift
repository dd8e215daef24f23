import Foundation
import HTTPTypes
public import Tracing

/// How a client traces its requests: the span names and attribute keys, and the spans' beginnings and ends.
///
/// A traced request is one span for the logical request (kind `internal`), with a child span per attempt that goes
/// to the server (kind `client`), following the OpenTelemetry HTTP client conventions. The attempt's span context
/// goes out in the request's header fields through the tracer's own injection (W3C `traceparent` and `tracestate`
/// with an OpenTelemetry tracer). See <doc:Tracing>.
public enum RequestTracing {
    /// The tracer the application installed (`InstrumentationSystem.bootstrap(_:)`, or a task's `withTracer(_:_:)`),
    /// or `nil` when it installed none: the default of ``RequestClient/Configuration/tracer``.
    public static var installedTracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// The attribute keys RequestKit sets: OpenTelemetry's HTTP client keys, and RequestKit's own under
    /// `requestkit.`.
    public enum AttributeKey {
        /// The HTTP method (OpenTelemetry `http.request.method`).
        public static let method = "http.request.method"
        /// The response's status code (OpenTelemetry `http.response.status_code`).
        public static let statusCode = "http.response.status_code"
        /// The host the request went to (OpenTelemetry `server.address`).
        public static let serverAddress = "server.address"
        /// The port the request went to (OpenTelemetry `server.port`).
        public static let serverPort = "server.port"
        /// The URL, with credentials and secret query values redacted (OpenTelemetry `url.full`).
        public static let url = "url.full"
        /// Why the request failed: the status code for an answer of 400 or more, otherwise the name of the
        /// ``RequestKitError/Code`` (OpenTelemetry `error.type`).
        public static let errorType = "error.type"
        /// How many times the request was sent before this attempt (OpenTelemetry `http.request.resend_count`;
        /// absent on the first attempt).
        public static let resendCount = "http.request.resend_count"
        /// The request body's size in bytes, when known (OpenTelemetry `http.request.body.size`).
        public static let requestBodySize = "http.request.body.size"
        /// The bytes of response body read (OpenTelemetry `http.response.body.size`).
        public static let responseBodySize = "http.response.body.size"
        /// The request's operation: an endpoint name or `"METHOD path"`.
        public static let operation = "requestkit.operation"
        /// The attempt's number, from 1.
        public static let attempt = "requestkit.attempt"
        /// Why the attempt is a retry: the previous attempt's status code or error code name.
        public static let retryReason = "requestkit.retry.reason"
        /// How long the retry step waited before the attempt, in seconds.
        public static let retryDelay = "requestkit.retry.delay"
        /// What the HTTP cache did: `hit`, `stale`, `revalidated`, `miss` or `bypass`.
        public static let cacheResult = "requestkit.cache.result"
        /// The cache's whole `Cache-Status` entry (RFC 9211), such as `fwd=stale; fwd-status=304; stored`.
        public static let cacheStatus = "requestkit.cache.status"
        /// The replay's number, on a ``RequestTracing/replayEvent`` event.
        public static let replay = "requestkit.replay"
    }

    /// The span of the attempt the current task is sending, while a traced client's transport runs.
    @TaskLocal static var attemptSpan: (any Span)?

    /// Whether the current task is sending an attempt whose span records events: a transport asks before it does
    /// work that only ``recordAttemptEvent(_:attributes:)`` needs.
    public static var isRecordingAttempt: Bool { attemptSpan != nil }

    /// Adds an event to the span of the attempt the current task is sending, for transports to tell what happened
    /// below the client (``connectionPoolWaitEvent``, say). Does nothing when the attempt is not traced.
    public static func recordAttemptEvent(_ name: String, attributes: SpanAttributes = [:]) {
        attemptSpan?.addEvent(SpanEvent(name: name, attributes: attributes))
    }

    /// The event an attempt's span gets when the transport's connection pool had no free connection for it, so
    /// that it waited for one; `requestkit.connection_pool.in_flight` and `requestkit.connection_pool.limit` say how
    /// many of the client's requests to the origin were in flight, and how many connections the pool opens.
    public static let connectionPoolWaitEvent = "requestkit.connection_pool.wait"

    /// The event an attempt's span gets when the transport sent the request again because the server did not
    /// process it (see ``RequestReplayed``).
    public static let replayEvent = "requestkit.replay"

    /// What the cache's `Cache-Status` entry (RFC 9211) says happened, in one word: `hit` (answered from the cache
    /// without asking the server), `stale` (a stored answer served because the server could not be reached),
    /// `revalidated` (the server confirmed the stored answer with `304`), `miss` (the server answered, and the
    /// answer may have been stored) or `bypass` (the request does not use the cache).
    ///
    /// - Parameter report: the entry after `RequestKit; `, such as `hit; ttl=30` or `fwd=miss; stored`.
    public static func cacheResult(_ report: some StringProtocol) -> String {
        if report.hasPrefix("hit") { return "hit" }
        if report.contains("stale-if-error") { return "stale" }
        if report.contains("fwd-status=304") { return "revalidated" }
        if report.hasPrefix("fwd=method") || report.hasPrefix("fwd=bypass") { return "bypass" }
        return "miss"
    }

    /// The RequestKit entry of `fields`' `Cache-Status`, after `RequestKit; `, or `nil` when the cache did not see
    /// the request.
    static func cacheReport(in fields: HTTPFields) -> Substring? {
        for value in fields[values: CacheRules.cacheStatus].reversed() {
            for entry in value.split(separator: ",") {
                let trimmed = entry.drop(while: { $0 == " " })
                if trimmed.hasPrefix("RequestKit;") {
                    return trimmed.dropFirst("RequestKit;".count).drop(while: { $0 == " " })
                }
            }
        }
        return nil
    }

    /// The attributes every span of `request` carries.
    static func setRequestAttributes(_ span: any Span, _ request: ClientRequest) {
        span.updateAttributes { attributes in
            attributes[AttributeKey.method] = request.method.rawValue
            attributes[AttributeKey.operation] = request.operation
            attributes[AttributeKey.url] = Redaction.redact(request.url).absoluteString
            if let host = request.url.host {
                attributes[AttributeKey.serverAddress] = host
            }
            if let port = request.url.port ?? defaultPort(request.url.scheme) {
                attributes[AttributeKey.serverPort] = port
            }
        }
    }

    /// Records on `span` how a request failed, with the status as the error type of an unacceptable answer.
    static func setFailure(_ span: any Span, _ error: any Error) {
        let type: String
        if let error = error as? RequestKitError {
            if let status = error.status, status >= 400, error.code == .unacceptableStatus {
                type = String(status)
            } else {
                type = error.code.name
            }
            if let status = error.status { span.attributes[AttributeKey.statusCode] = status }
        } else if error is CancellationError {
            type = RequestKitError.Code.cancelled.name
        } else {
            type = String(describing: Swift.type(of: error))
        }
        span.attributes[AttributeKey.errorType] = type
        span.setStatus(SpanStatus(code: .error, message: type))
    }

    /// Records `response`'s status on an attempt's span: answers of 400 or more are errors of the attempt.
    static func setResponse(_ span: any Span, _ response: ClientResponse) {
        let status = response.status.code
        span.attributes[AttributeKey.statusCode] = status
        if status >= 400 {
            span.attributes[AttributeKey.errorType] = String(status)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    private static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// Writes a tracer's propagation fields into a request's header fields, replacing fields of the same name.
    struct HeaderInjector: Injector {
        func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
            guard let name = HTTPField.Name(key) else { return }
            fields[name] = value
        }
    }
}
