/// Every failed check of a value, thrown by ``Validatable/validate()``.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case validationFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// One or more checks of the value failed; ``ValidationError/failures`` lists them.
        public static let validationFailed = Code(.validationFailed)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`validationFailed`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`validationFailed`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// The failures in declaration order; never empty.
    public let failures: [ValidationFailure]

    /// Creates an error from failures.
    public init(_ code: Code, failures: [ValidationFailure]) {
        self.code = code
        self.failures = failures
    }

    /// Creates an error from failures.
    @available(
        *,
        deprecated,
        renamed: "init(_:failures:)",
        message: "pass the code: ValidationError(.validationFailed, failures:)"
    )
    public init(failures: [ValidationFailure]) {
        self.init(.validationFailed, failures: failures)
    }

    /// The paths that failed, in order, without repeats.
    public var paths: [String] {
        var seen = Set<String>()
        return failures.map(\.path).filter { seen.insert($0).inserted }
    }

    /// `N validation failures: a: …; b: …`, listing at most ten.
    public var description: String {
        let count = failures.count
        let listed = failures.prefix(10).map { ModelKitText.truncated($0.description, limit: 150) }.joined(
            separator: "; "
        )
        let more = count > 10 ? "; and \(count - 10) more" : ""
        return "\(count) validation failure\(count == 1 ? "" : "s"): \(listed)\(more)"
    }
}
