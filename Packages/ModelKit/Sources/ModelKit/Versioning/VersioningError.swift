/// Why a versioned operation failed.
public struct VersioningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
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

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`invalidVersion`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short phrase for people, used in the error's description.
        var phrase: String { value.rawValue }
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

    /// `phrase: detail`, such as `invalid API version: "two"`.
    public var description: String { "\(code.phrase): \(detail)" }
}
