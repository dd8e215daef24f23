public import Foundation

/// An error raised by RequestKit.
///
/// Errors are values with a stable ``code``, the context they happened in (the operation, the URL, the HTTP status,
/// the underlying error) and a short, bounded description. New codes may be added in minor releases, so switch over
/// ``code`` with a `default` case or compare with the static members.
public struct RequestKitError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, without the details.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case invalidEnvironment
            case invalidPath
            case invalidRequest
            case refused
            case transportFailed
            case cancelled
            case timedOut
            case unacceptableStatus
            case unacceptableContentType
            case decodingFailed
            case bodyTooLarge
            case fileSystem
            case shutDown
            case pinningFailed
            case tooManyRedirects
            case offline
            case connectionRefused
            case decompressionFailed
            case tlsVerificationFailed
            case authenticationFailed
            case redundantRequest
            case notCached
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// An environment's name or base URL is not usable.
        public static let invalidEnvironment = Code(.invalidEnvironment)
        /// A request path does not resolve against the environment.
        public static let invalidPath = Code(.invalidPath)
        /// The request cannot be sent as described (for example an upload with a method that has no body).
        public static let invalidRequest = Code(.invalidRequest)
        /// A request decorator refused to let the request go out.
        public static let refused = Code(.refused)
        /// The transport failed to deliver the request or to receive the response.
        public static let transportFailed = Code(.transportFailed)
        /// The request was cancelled through its token, its task, or an environment switch.
        public static let cancelled = Code(.cancelled)
        /// The request took longer than its timeout allowed.
        public static let timedOut = Code(.timedOut)
        /// The server answered with a status code the request does not accept.
        public static let unacceptableStatus = Code(.unacceptableStatus)
        /// The server answered with a content type the request does not accept or cannot decode.
        public static let unacceptableContentType = Code(.unacceptableContentType)
        /// The response body could not be decoded into the requested type.
        public static let decodingFailed = Code(.decodingFailed)
        /// The response body is larger than the request allows to hold in memory.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// A file could not be read, written or moved.
        public static let fileSystem = Code(.fileSystem)
        /// The client or transport was shut down.
        public static let shutDown = Code(.shutDown)
        /// The server's certificate matches none of the pins of its host; no request was sent on the connection.
        public static let pinningFailed = Code(.pinningFailed)
        /// The redirect limit was reached or the redirects form a cycle.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// The reachability monitor reports the environment's host as unreachable; nothing was sent.
        public static let offline = Code(.offline)
        /// Nothing accepts connections at the address (the server is not running); nothing was sent.
        public static let connectionRefused = Code(.connectionRefused)
        /// A compressed response body is corrupt, truncated, or uses a content coding RequestKit does not decode.
        public static let decompressionFailed = Code(.decompressionFailed)
        /// The server's certificate failed TLS verification; nothing was sent on the connection. The underlying
        /// error is a ``TLSVerificationError`` naming the check that failed.
        public static let tlsVerificationFailed = Code(.tlsVerificationFailed)
        /// The credential could not be refreshed, or the server rejected the refreshed one (see ``Authenticator``).
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The same request is already in flight and the request's ``DuplicatePolicy`` is
        /// ``DuplicatePolicy/reject``; nothing was sent.
        public static let redundantRequest = Code(.redundantRequest)
        /// The request's cache policy is ``CachePolicy/onlyIfCached`` and the cache holds no usable answer for it;
        /// nothing was sent.
        public static let notCached = Code(.notCached)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`invalidEnvironment`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// The kind of error.
    public let code: Code

    /// The code's name, bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }
    /// The environment name, path or URL the error is about.
    public let subject: String
    /// Why it failed, in a short sentence.
    public let reason: String
    /// The operation that failed: an endpoint name or `"METHOD path"`.
    public var operation: String?
    /// The URL of the request, when it was resolved.
    public var url: URL?
    /// The HTTP status of the response, when one arrived.
    public var status: Int?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?
    /// The decoded error body the server sent with an unacceptable status, if one was decoded.
    public var errorBody: (any Sendable)?
    /// Whether the connection closed or was reset before the response arrived (see ``connectionLost(_:reason:operation:url:underlying:)``).
    public internal(set) var isConnectionLost = false
    /// Whether the server certainly did not process the request: it refused the stream (HTTP/2 `REFUSED_STREAM`),
    /// so any method may go again (see ``notProcessed(_:reason:operation:url:underlying:)``).
    public internal(set) var wasNotProcessed = false

    /// Creates an error. Prefer the static factories.
    public init(
        _ code: Code,
        subject: String,
        reason: String,
        operation: String? = nil,
        url: URL? = nil,
        status: Int? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.subject = subject
        self.reason = reason
        self.operation = operation
        self.url = url
        self.status = status
        self.underlying = underlying
    }

    /// Creates an error, as ``init(_:subject:reason:operation:url:status:underlying:)`` does; the earlier spelling,
    /// kept so that code written against it still builds.
    @available(*, deprecated, renamed: "init(_:subject:reason:operation:url:status:underlying:)")
    public init(
        code: Code,
        subject: String,
        reason: String,
        operation: String? = nil,
        url: URL? = nil,
        status: Int? = nil,
        underlying: (any Error)? = nil
    ) {
        self.init(
            code,
            subject: subject,
            reason: reason,
            operation: operation,
            url: url,
            status: status,
            underlying: underlying
        )
    }

    /// An environment's name or base URL is not usable.
    public static func invalidEnvironment(name: String, reason: String) -> RequestKitError {
        RequestKitError(.invalidEnvironment, subject: name, reason: reason)
    }

    /// A request path does not resolve against the environment.
    public static func invalidPath(_ path: String, reason: String) -> RequestKitError {
        RequestKitError(.invalidPath, subject: path, reason: reason)
    }

    /// The connection closed or was reset before the response arrived: a ``Code/transportFailed`` error that
    /// ``isConnectionLost`` marks, so a ``RetryPolicy`` treats it as transient. Transports throw it when the server
    /// closes or resets the connection before the response head, so the request may or may not have been applied.
    public static func connectionLost(
        _ subject: String,
        reason: String = "the connection closed before the response arrived",
        operation: String? = nil,
        url: URL? = nil,
        underlying: (any Error)? = nil
    ) -> RequestKitError {
        var error = RequestKitError(
            .transportFailed,
            subject: subject,
            reason: reason,
            operation: operation,
            url: url,
            underlying: underlying
        )
        error.isConnectionLost = true
        return error
    }

    /// The server refused the request before processing any of it (HTTP/2 `REFUSED_STREAM`, RFC 9113 section 8.7): a
    /// ``Code/transportFailed`` error with ``wasNotProcessed`` set and ``isConnectionLost`` too. The client sends such a
    /// request again on its own, whatever its method.
    public static func notProcessed(
        _ subject: String,
        reason: String = "the server refused the request before processing it",
        operation: String? = nil,
        url: URL? = nil,
        underlying: (any Error)? = nil
    ) -> RequestKitError {
        var error = connectionLost(subject, reason: reason, operation: operation, url: url, underlying: underlying)
        error.wasNotProcessed = true
        return error
    }

    /// The server's error body decoded as `type`, when one was decoded with that type.
    public func errorBody<Body>(as type: Body.Type) -> Body? {
        errorBody as? Body
    }

    public var description: String {
        let shown = subject.count > 80 ? subject.prefix(77) + "..." : Substring(subject)
        var text = "\(code): \"\(shown)\": \(reason.count > 300 ? reason.prefix(297) + "..." : Substring(reason))"
        if let status { text += " (status \(status))" }
        if let underlying {
            let detail = String(describing: underlying)
            text += ": " + (detail.count > 160 ? detail.prefix(157) + "..." : Substring(detail))
        }
        return text
    }
}
