/// Why a versioned operation failed.
public struct VersioningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidVersion = "invalid API version"
            case unsupportedVersion = "unsupported API version"
            case missingCanonical = "existing value required"
            case conversionFailed = "conversion failed"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// Text that is not a version such as `v2`.
        public static let invalidVersion = Code(.invalidVersion)
        /// A version no representation is registered for.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A representation that lacks fields of the canonical model needs the existing canonical value to
        /// convert back, and none was given.
        public static let missingCanonical = Code(.missingCanonical)
        /// A representation holds a value the canonical model cannot take.
        public static let conversionFailed = Code(.conversionFailed)

        /// A short phrase naming the code.
        public var description: String { value.rawValue }

        /// The code's name, as written in Swift (`invalidVersion`).
        public var name: String { String(describing: value) }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`invalidVersion`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// Context: the offending version or text, the supported versions, or the missing fields.
    public let detail: String

    /// Creates an error; representations throw these from ``VersionedRepresentation/canonical(updating:)``.
    public init(_ code: Code, detail: String) {
        self.code = code
        self.detail = ModelKitText.truncated(detail, limit: 200)
    }

    /// `code: detail`.
    public var description: String { "\(code): \(detail)" }
}
