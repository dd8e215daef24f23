/// Why a media type or `Accept` header could not be parsed.
public struct MIMETypeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case malformed = "malformed media type"
            case invalidQuality = "invalid quality value"
            case invalidWildcard = "invalid wildcard"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The text breaks the `type/subtype; name=value` grammar.
        public static let malformed = Code(.malformed)
        /// A `q` parameter that is not a number from 0 to 1 with at most three decimals.
        public static let invalidQuality = Code(.invalidQuality)
        /// A wildcard type with a concrete subtype, such as `*/json`.
        public static let invalidWildcard = Code(.invalidWildcard)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`malformed`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short phrase for people, used in the error's description.
        var phrase: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`malformed`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// The offset, in characters, where parsing stopped.
    public let offset: Int
    /// What the parser expected there.
    public let expected: String
    /// The input, cut to 40 characters.
    public let input: String

    init(_ code: Code, offset: Int, expected: String, input: String) {
        self.code = code
        self.offset = offset
        self.expected = expected
        self.input = ModelKitText.truncated(input)
    }

    /// `malformed media type at offset 5 in "text/": expected a subtype`.
    public var description: String {
        "\(code.phrase) at offset \(offset) in \(ModelKitText.quoted(input)): expected \(ModelKitText.truncated(expected, limit: 120))"
    }
}
