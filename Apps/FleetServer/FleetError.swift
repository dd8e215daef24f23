public import FleetModels
public import ModelKit

/// What the fleet service refuses or fails at, each mapped to one HTTP status and problem type.
public struct FleetError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Hashable {
        /// No vehicle has the ID.
        case notFound
        /// Another vehicle has the plate.
        case duplicatePlate
        /// The revision in the body is not the stored one.
        case staleRevision
        /// The `If-Match` revision is not the stored one.
        case preconditionFailed
        /// A v2 update without a revision.
        case preconditionRequired
        /// The vehicle breaks a rule.
        case validation
        /// Two writers changed the vehicle at once; the other one won.
        case concurrentUpdate
        /// The store is not initialized (yet), or was closed.
        case unavailable
        /// The store failed.
        case storeFailure
    }

    /// The kind.
    public let kind: Kind
    /// What happened, for people.
    public let detail: String
    /// Field failures, for ``Kind/validation``.
    public let failures: [ValidationFailure]

    /// An error.
    public init(_ kind: Kind, _ detail: String, failures: [ValidationFailure] = []) {
        self.kind = kind
        self.detail = detail
        self.failures = failures
    }

    public var description: String { detail }

    /// The HTTP status this error is sent with.
    public var status: Int {
        switch kind {
        case .notFound: 404
        case .duplicatePlate, .staleRevision, .concurrentUpdate: 409
        case .preconditionFailed: 412
        case .preconditionRequired: 428
        case .validation: 422
        case .unavailable: 503
        case .storeFailure: 500
        }
    }

    /// The problem body this error is sent as.
    public var problem: Problem {
        let (type, title): (String, String) =
            switch kind {
            case .notFound: (ProblemType.notFound, "Not found")
            case .duplicatePlate: (ProblemType.duplicatePlate, "Duplicate plate")
            case .staleRevision, .concurrentUpdate: (ProblemType.conflict, "Conflict")
            case .preconditionFailed: (ProblemType.preconditionFailed, "Precondition failed")
            case .preconditionRequired: (ProblemType.preconditionRequired, "Precondition required")
            case .validation: (ProblemType.validation, "Validation failed")
            case .unavailable: (ProblemType.unavailable, "Store unavailable")
            case .storeFailure: ("about:blank", "Internal error")
            }
        let errors = failures.isEmpty ? nil : failures.map { Problem.FieldError(path: $0.path, message: $0.message) }
        return Problem(type: type, title: title, status: status, detail: detail, errors: errors)
    }
}
