/// A backend failed a conformance check.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case checkFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The backend did not do what a check expected; ``ConformanceFailure/message`` says what.
        public static let checkFailed = Code(.checkFailed)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`checkFailed`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`checkFailed`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// What was expected and what happened, cut to 300 characters.
    public let message: String

    /// Creates a failure.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = String(message.prefix(300))
    }

    /// A failed check (``Code/checkFailed``).
    init(_ message: String) {
        self.init(.checkFailed, message)
    }

    public var description: String { "conformance failure: " + message }
}
