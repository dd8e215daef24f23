/// An error response body in the `application/problem+json` format of RFC 9457, as every `fleetd` error is sent.
///
/// `errors` lists validation failures and unknown fields, each with its field path (`maintenance.due`), so a
/// client can point at the exact input that was refused.
public struct Problem: Codable, Sendable, Hashable, Error, CustomStringConvertible {
    /// The media type of a problem body.
    public static let mediaType = "application/problem+json"

    /// A URI naming the problem kind; `about:blank` when the status says it all.
    public var type: String
    /// A short summary of the kind (`Validation failed`).
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong this time.
    public var detail: String?
    /// Field-level failures.
    public var errors: [FieldError]?

    /// One refused field.
    public struct FieldError: Codable, Sendable, Hashable {
        /// The field's path in the body or the query (`maintenance.lastServiced`, `query.limit`).
        public var path: String
        /// Why it was refused.
        public var message: String

        /// A field failure.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// A problem.
    public init(
        type: String = "about:blank",
        title: String,
        status: Int,
        detail: String? = nil,
        errors: [FieldError]? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.errors = errors
    }

    public var description: String {
        var text = "\(status) \(title)"
        if let detail { text += ": \(detail)" }
        for error in errors ?? [] {
            text += "\n  \(error.path): \(error.message)"
        }
        return text
    }
}

/// The problem kinds `fleetd` sends, as the `type` member of a ``Problem``.
public enum ProblemType {
    public static let validation = "https://fleet.example/problems/validation"
    public static let malformedBody = "https://fleet.example/problems/malformed-body"
    public static let unknownField = "https://fleet.example/problems/unknown-field"
    public static let badQuery = "https://fleet.example/problems/bad-query"
    public static let notFound = "https://fleet.example/problems/not-found"
    public static let conflict = "https://fleet.example/problems/conflict"
    public static let preconditionFailed = "https://fleet.example/problems/precondition-failed"
    public static let preconditionRequired = "https://fleet.example/problems/precondition-required"
    public static let unauthorized = "https://fleet.example/problems/unauthorized"
    public static let tooLarge = "https://fleet.example/problems/too-large"
    public static let unsupportedMediaType = "https://fleet.example/problems/unsupported-media-type"
    public static let duplicatePlate = "https://fleet.example/problems/duplicate-plate"
    public static let unavailable = "https://fleet.example/problems/unavailable"
    public static let notAcceptable = "https://fleet.example/problems/not-acceptable"
    public static let methodNotAllowed = "https://fleet.example/problems/method-not-allowed"
    public static let malformedRequest = "https://fleet.example/problems/malformed-request"
    public static let requestTimeout = "https://fleet.example/problems/request-timeout"
}
