/// Why a media type or `Accept` header could not be parsed.
public struct MIMETypeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable {
            case malformed = "malformed media type"
            case invalidQuality = "invalid quality value"
            case invalidWildcard = "invalid wildcard"
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// The text breaks the `type/subtype; name=value` grammar.
        public static let malformed = Kind(.malformed)
        /// A `q` parameter that is not a number from 0 to 1 with at most three decimals.
        public static let invalidQuality = Kind(.invalidQuality)
        /// A wildcard type with a concrete subtype, such as `*/json`.
        public static let invalidWildcard = Kind(.invalidWildcard)

        /// A short phrase naming the kind.
        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// The offset, in characters, where parsing stopped.
    public let offset: Int
    /// What the parser expected there.
    public let expected: String
    /// The input, cut to 40 characters.
    public let input: String

    init(_ kind: Kind, offset: Int, expected: String, input: String) {
        self.kind = kind
        self.offset = offset
        self.expected = expected
        self.input = ModelKitText.truncated(input)
    }

    /// `malformed media type at offset 5 in "text/": expected a subtype`.
    public var description: String {
        "\(kind) at offset \(offset) in \(ModelKitText.quoted(input)): expected \(expected)"
    }
}
