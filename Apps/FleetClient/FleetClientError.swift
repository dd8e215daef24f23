public import FleetModels
public import Foundation
public import RequestKit

/// Why a fleet operation failed, with a message a person can act on.
///
/// Compare ``code`` with the static members (`error.code == .unauthorized`); new codes may be added, so a `switch`
/// over it needs a `default`. The server's problem details, the HTTP status, the URL and the underlying error are
/// kept as context.
public struct FleetClientError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case unreachable, unauthorized, notFound, conflict, preconditionFailed, validation, server, transport
            case invalidInput, offlineStore, invalidResponse, notCached
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The daemon could not be reached (connection refused, timed out, host unreachable).
        public static let unreachable = Code(.unreachable)
        /// `401`: the token is missing or wrong.
        public static let unauthorized = Code(.unauthorized)
        /// `404`: no such vehicle (or path).
        public static let notFound = Code(.notFound)
        /// `409`: a stale `revision` in the body, or a duplicate plate.
        public static let conflict = Code(.conflict)
        /// `412` or `428`: the `If-Match` revision is stale, or a revision was required and missing.
        public static let preconditionFailed = Code(.preconditionFailed)
        /// `400` or `422`: the request was refused field by field (see ``fieldErrors``).
        public static let validation = Code(.validation)
        /// Any other error status from the server.
        public static let server = Code(.server)
        /// The request failed in transit after a connection (reset, timed out, bad TLS, …).
        public static let transport = Code(.transport)
        /// The caller's input cannot be sent (an ID that is not a UUID, a body that does not encode).
        public static let invalidInput = Code(.invalidInput)
        /// The offline copy could not be opened, read or written.
        public static let offlineStore = Code(.offlineStore)
        /// The server answered something that does not follow the contract.
        public static let invalidResponse = Code(.invalidResponse)
        /// A read that may answer only from the HTTP cache (offline) found no usable answer there; nothing was sent.
        public static let notCached = Code(.notCached)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`unreachable`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code

    /// The code's name, bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }
    /// What went wrong, in one or a few lines.
    public let message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's problem details, when it sent some.
    public var problem: Problem?
    /// The URL of the request, when there was one.
    public var url: URL?
    /// The error that caused this one.
    public var underlying: (any Error)?

    /// An error with a code and a message.
    public init(
        _ code: Code,
        message: String,
        status: Int? = nil,
        problem: Problem? = nil,
        url: URL? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.problem = problem
        self.url = url
        self.underlying = underlying
    }

    /// An error with a code and a message.
    @available(*, deprecated, renamed: "init(_:message:status:problem:url:underlying:)")
    public init(
        code: Code,
        message: String,
        status: Int? = nil,
        problem: Problem? = nil,
        url: URL? = nil,
        underlying: (any Error)? = nil
    ) {
        self.init(code, message: message, status: status, problem: problem, url: url, underlying: underlying)
    }

    /// The field failures the server listed (`plate: must not be empty`), empty when it listed none.
    public var fieldErrors: [Problem.FieldError] { problem?.errors ?? [] }

    public var description: String {
        var text = String(message.prefix(1_000))
        for error in fieldErrors.prefix(10) where !message.contains("\(error.path): ") {
            text += "\n  \(error.path): \(error.message)"
        }
        return text
    }

    /// Input that cannot be sent.
    public static func invalidInput(_ message: String) -> FleetClientError {
        FleetClientError(.invalidInput, message: message)
    }

    /// The offline copy failed.
    static func offlineStore(_ message: String, underlying: (any Error)?) -> FleetClientError {
        FleetClientError(.offlineStore, message: message, underlying: underlying)
    }
}

extension FleetClientError {
    /// Translates a RequestKit error into a fleet error; `baseURL` names the daemon in "cannot reach" messages.
    ///
    /// `service` names what was being reached ("cannot reach fleetd at …: is it running?"); `nil` for any
    /// other server ("cannot reach http://…").
    public init(_ error: RequestKitError, baseURL: URL?, service: String? = "fleetd") {
        let problem = error.errorBody(as: Problem.self)
        let where_ = Self.origin(of: error.url ?? baseURL)
        if error.code == .unacceptableStatus, let status = error.status {
            self = Self.fromStatus(status, problem: problem, url: error.url, underlying: error)
            return
        }
        if error.code == .notCached {
            self.init(
                .notCached,
                message: "no answer for \(error.url?.absoluteString ?? error.subject) is in the cache",
                url: error.url,
                underlying: error
            )
            return
        }
        if error.code == .offline || Self.isUnreachable(error) {
            self.init(
                .unreachable,
                message: service.map { "cannot reach \($0) at \(where_): is it running?" } ?? "cannot reach \(where_)",
                url: error.url,
                underlying: error
            )
            return
        }
        if error.code == .decodingFailed || error.code == .unacceptableContentType {
            self.init(
                .invalidResponse,
                message: "fleetd at \(where_) sent a response that does not follow the API: \(error.reason)",
                status: error.status,
                url: error.url,
                underlying: error
            )
            return
        }
        if error.code == .invalidPath || error.code == .invalidRequest || error.code == .invalidEnvironment {
            self.init(
                .invalidInput,
                message: "\(error.subject): \(error.reason)",
                url: error.url,
                underlying: error
            )
            return
        }
        self.init(
            .transport,
            message: "the request to \(where_) failed: \(error.reason)",
            status: error.status,
            url: error.url,
            underlying: error
        )
    }

    /// The error for an error status, with the server's problem details when it sent them.
    public static func fromStatus(
        _ status: Int,
        problem: Problem?,
        url: URL? = nil,
        underlying: (any Error)? = nil
    ) -> FleetClientError {
        let detail = problem?.detail ?? problem?.title
        func make(_ code: Code, _ summary: String) -> FleetClientError {
            var message = summary
            if let detail, !detail.isEmpty { message += ": \(detail)" }
            return FleetClientError(
                code,
                message: message,
                status: status,
                problem: problem,
                url: url,
                underlying: underlying
            )
        }
        switch status {
        case 401:
            return make(
                .unauthorized,
                "unauthorized (401): the token is missing or wrong; pass --token or set FLEET_TOKEN"
            )
        case 403:
            return make(.unauthorized, "forbidden (403): this token may not do that")
        case 404:
            return make(.notFound, "not found (404)")
        case 409:
            let kind =
                problem?.type == ProblemType.duplicatePlate
                ? "conflict (409): the plate is already taken"
                : "conflict (409): the vehicle changed since it was read (stale revision)"
            return make(.conflict, kind)
        case 412:
            return make(.preconditionFailed, "precondition failed (412): the vehicle changed since it was read")
        case 428:
            return make(.preconditionFailed, "precondition required (428): send the revision you read")
        case 400, 422:
            var error = make(.validation, "the request was refused (\(status))")
            let fields = problem?.errors ?? []
            if !fields.isEmpty {
                error = FleetClientError(
                    .validation,
                    message: error.message + "\n"
                        + fields.map { "  \($0.path): \($0.message)" }.joined(separator: "\n"),
                    status: status,
                    problem: problem,
                    url: url,
                    underlying: underlying
                )
            }
            return error
        default:
            return make(
                .server,
                "fleetd answered \(status) \(problem?.title ?? "")".trimmingCharacters(in: .whitespaces)
            )
        }
    }

    /// Whether a transport failure means the daemon cannot be reached: nothing listens (RequestKit's
    /// `connectionRefused`), or the connection was not established in time.
    static func isUnreachable(_ error: RequestKitError) -> Bool {
        if error.code == .connectionRefused { return true }
        return error.code == .timedOut && error.reason.contains("connection")
    }

    /// `http://host:port` of a URL, for messages.
    static func origin(of url: URL?) -> String {
        guard let url, let scheme = url.scheme, let host = url.host else { return "the configured address" }
        if let port = url.port { return "\(scheme)://\(host):\(port)" }
        return "\(scheme)://\(host)"
    }
}
