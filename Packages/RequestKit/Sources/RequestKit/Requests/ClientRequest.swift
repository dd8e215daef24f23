public import Foundation
public import HTTPTypes

/// A request as a transport sends it: method, absolute URL, header fields and an optional body.
public struct ClientRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The absolute URL, resolved against the environment in force when the request was sent.
    ///
    /// A client sends a request only to its environment's origin. A URL the client resolved (or checked, for
    /// ``RequestClient/send(_:)->ClientResponse``) goes out without another look; once anything sets the URL, the
    /// request is checked again just before the transport, against the environment current then.
    public var url: URL {
        @inlinable get { storedURL }
        @inlinable set {
            storedURL = newValue
            originChecked = false
        }
    }
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: ClientRequest.Body?
    /// Timeouts for this request.
    public var timeouts: Timeouts
    /// A short name of the operation for logs, metrics and errors (an endpoint name or `"METHOD path"`).
    public var operation: String
    /// How the request uses the client's HTTP cache (``RequestClient/Configuration/cache``).
    public var cachePolicy: CachePolicy
    /// Whether the client's ``RetryPolicy`` may send this request again (``RetryMode/automatic`` by default).
    public var retryMode = RetryMode.automatic
    /// What happens when an identical request is already in flight, or `nil` for the client's
    /// ``RequestClient/Configuration/duplicatePolicy``.
    public var duplicatePolicy: DuplicatePolicy?
    /// The number of this attempt, from 1; the retry middleware counts it up for every attempt it sends, so
    /// middleware below it, the transport and observers can tell attempts apart.
    public var attempt = 1
    /// What sees each redirect a transport follows by itself, in order (see ``RedirectHandler``); empty by default.
    public var redirectHandlers: [any RedirectHandler] = []
    /// The request's number for observers (the ``RequestStarted/id``), or 0 when nobody observes it.
    var observationID: UInt64 = 0
    /// The storage of ``url``.
    @usableFromInline var storedURL: URL
    /// Whether the client found ``url`` on its environment's origin, with nothing setting it since.
    @usableFromInline var originChecked = false

    /// Creates a request.
    public init(
        method: HTTPRequest.Method,
        url: URL,
        headerFields: HTTPFields = [:],
        body: ClientRequest.Body? = nil,
        timeouts: Timeouts = Timeouts(),
        operation: String? = nil,
        cachePolicy: CachePolicy = .useProtocol
    ) {
        self.method = method
        self.storedURL = url
        self.headerFields = headerFields
        self.body = body
        self.timeouts = timeouts
        self.operation = operation ?? "\(method.rawValue) \(url.path)"
        self.cachePolicy = cachePolicy
    }
}

/// Why an attempt of a request is a retry.
///
/// The retry step binds it to the task that sends a retry (``current``), for the steps below it, the transport and
/// the attempt's span (see <doc:Tracing>) to read; a retry step of your own can bind it the same way. It is not a
/// field of ``ClientRequest``, which every request copies several times.
public struct RetryCause: Sendable, Hashable {
    /// The cause of the attempt the current task is sending, or `nil` for a first attempt.
    @TaskLocal public static var current: RetryCause?

    /// What the previous attempt ended with: its status code (`"503"`) or the name of its error's
    /// ``RequestKitError/Code`` (`"connectionLost"`).
    public var reason: String
    /// How long the retry step waited before this attempt.
    public var delay: Duration

    /// Creates a cause.
    public init(reason: String, delay: Duration) {
        self.reason = reason
        self.delay = delay
    }
}
