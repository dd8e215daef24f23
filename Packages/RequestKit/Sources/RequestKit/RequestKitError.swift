/// An error raised by RequestKit.
///
/// Errors are values with a stable ``code`` and a short, bounded description. New codes may be added in minor
/// releases, so switch over ``code`` with a `default` case or compare with the static members.
public struct RequestKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, without the details.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case invalidEnvironment
            case invalidPath
        }
        private let value: Value

        /// An environment's name or base URL is not usable.
        public static let invalidEnvironment = Code(value: .invalidEnvironment)
        /// A request path does not resolve against the environment.
        public static let invalidPath = Code(value: .invalidPath)

        public var description: String {
            switch value {
            case .invalidEnvironment: "invalidEnvironment"
            case .invalidPath: "invalidPath"
            }
        }
    }

    /// The kind of error.
    public let code: Code
    /// The environment name or path the error is about.
    public let subject: String
    /// Why the input was refused.
    public let reason: String

    /// An environment's name or base URL is not usable.
    public static func invalidEnvironment(name: String, reason: String) -> RequestKitError {
        RequestKitError(code: .invalidEnvironment, subject: name, reason: reason)
    }

    /// A request path does not resolve against the environment.
    public static func invalidPath(_ path: String, reason: String) -> RequestKitError {
        RequestKitError(code: .invalidPath, subject: path, reason: reason)
    }

    public var description: String {
        let shown = subject.count > 80 ? subject.prefix(77) + "..." : Substring(subject)
        return "\(code): \"\(shown)\": \(reason)"
    }
}
