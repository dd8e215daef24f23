/// Why a versioned operation failed.
public struct VersioningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable {
            case invalidVersion = "invalid API version"
            case unsupportedVersion = "unsupported API version"
            case missingCanonical = "existing value required"
            case conversionFailed = "conversion failed"
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// Text that is not a version such as `v2`.
        public static let invalidVersion = Kind(.invalidVersion)
        /// A version no representation is registered for.
        public static let unsupportedVersion = Kind(.unsupportedVersion)
        /// A representation that lacks fields of the canonical model needs the existing canonical value to
        /// convert back, and none was given.
        public static let missingCanonical = Kind(.missingCanonical)
        /// A representation holds a value the canonical model cannot take.
        public static let conversionFailed = Kind(.conversionFailed)

        /// A short phrase naming the kind.
        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// Context: the offending version or text, the supported versions, or the missing fields.
    public let detail: String

    /// Creates an error; representations throw these from ``VersionedRepresentation/canonical(updating:)``.
    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = ModelKitText.truncated(detail, limit: 200)
    }

    /// `kind: detail`.
    public var description: String { "\(kind): \(detail)" }
}
