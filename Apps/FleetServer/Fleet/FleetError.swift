public import FleetModels
public import ModelKit

/// What the fleet service refuses or fails at, each mapped to one HTTP status and problem type.
public struct FleetError: Error, Sendable, CustomStringConvertible {
    /// What failed; new codes may be added, so a `switch` over codes needs a `default`.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        fileprivate enum Value: String, Sendable, CaseIterable {
            case notFound, duplicatePlate, staleRevision, preconditionFailed, preconditionRequired, validation
            case concurrentUpdate, unavailable, storeFailure
        }

        fileprivate let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// No vehicle has the ID.
        public static let notFound = Code(.notFound)
        /// Another vehicle has the plate.
        public static let duplicatePlate = Code(.duplicatePlate)
        /// The revision in the body is not the stored one.
        public static let staleRevision = Code(.staleRevision)
        /// The `If-Match` revision is not the stored one.
        public static let preconditionFailed = Code(.preconditionFailed)
        /// A v2 update without a revision.
        public static let preconditionRequired = Code(.preconditionRequired)
        /// The vehicle breaks a rule.
        public static let validation = Code(.validation)
        /// Two writers changed the vehicle at once; the other one won.
        public static let concurrentUpdate = Code(.concurrentUpdate)
        /// The store is not initialized (yet), or was closed.
        public static let unavailable = Code(.unavailable)
        /// The store failed.
        public static let storeFailure = Code(.storeFailure)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`notFound`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What failed.
    public let code: Code
    /// What happened, for people.
    public let detail: String
    /// Field failures, for ``Code/validation``.
    public let failures: [ValidationFailure]
    /// The error underneath, when the store failed.
    public let underlying: (any Error)?

    /// An error.
    public init(_ code: Code, _ detail: String, failures: [ValidationFailure] = [], underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.failures = failures
        self.underlying = underlying
    }

    /// The code's name (`notFound`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// The detail, cut to 500 characters.
    public var description: String { String(detail.prefix(500)) }

    /// The HTTP status this error is sent with.
    public var status: Int {
        switch code.value {
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
            switch code.value {
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
