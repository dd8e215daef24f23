/// Why a JSON text could not be parsed, and where.
///
/// The error names the position (``offset`` in bytes from the start, and ``line`` and ``column`` counted from 1,
/// the column in Unicode scalars), what the parser ``expected`` and what it ``found`` there. Compare
/// ``code`` with the static members of ``Code`` to react to one kind of failure:
///
/// ```swift
/// do {
///     _ = try JSONValue(parsing: #"{"a": 1,}"#)
/// } catch {
///     print(error)  // line 1, column 9 (byte 8): expected a string key, found '}'
/// }
/// ```
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of parse failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case unexpectedEndOfInput = "unexpected end of input"
            case unexpectedCharacter = "unexpected character"
            case invalidNumber = "invalid number"
            case numberOutOfRange = "number out of range"
            case invalidEscape = "invalid escape sequence"
            case invalidUTF8 = "invalid UTF-8"
            case controlCharacterInString = "unescaped control character in string"
            case duplicateKey = "duplicate key"
            case nestingTooDeep = "nesting too deep"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The input ended before the value was complete.
        public static let unexpectedEndOfInput = Code(.unexpectedEndOfInput)
        /// A character that JSON's grammar does not allow at this position.
        public static let unexpectedCharacter = Code(.unexpectedCharacter)
        /// A number that breaks JSON's number grammar, such as `01`, `1.` or `-`.
        public static let invalidNumber = Code(.invalidNumber)
        /// A floating-point number whose magnitude is too large for `Double`, such as `1e400`.
        public static let numberOutOfRange = Code(.numberOutOfRange)
        /// A backslash escape that JSON does not define, or a `\u` escape with an unpaired surrogate.
        public static let invalidEscape = Code(.invalidEscape)
        /// Bytes inside a string that are not well-formed UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A control character (below U+0020) written into a string without escaping.
        public static let controlCharacterInString = Code(.controlCharacterInString)
        /// A key that appears twice in the same object.
        public static let duplicateKey = Code(.duplicateKey)
        /// Arrays and objects nested deeper than the parser's limit.
        public static let nestingTooDeep = Code(.nestingTooDeep)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`unexpectedCharacter`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short phrase for people, used in the error's description.
        var phrase: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`unexpectedCharacter`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// The byte offset of the failure, counted from 0.
    public let offset: Int
    /// The line of the failure, counted from 1.
    public let line: Int
    /// The column of the failure within its line, counted from 1 in Unicode scalars.
    public let column: Int
    /// What the parser expected at this position, such as `',' or '}'`.
    public let expected: String
    /// What the parser found there, such as `'x'`, `end of input` or `byte 0xFF`.
    public let found: String

    /// Creates an error at a position that has already been resolved into line and column.
    init(_ code: Code, offset: Int, line: Int, column: Int, expected: String, found: String) {
        self.code = code
        self.offset = offset
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
    }

    /// `line L, column C (byte B): expected …, found …`, bounded in length.
    public var description: String {
        let prefix = "line \(line), column \(column) (byte \(offset)): "
        let expected = ModelKitText.truncated(expected, limit: 120)
        let found = ModelKitText.truncated(found, limit: 120)
        switch code {
        case .nestingTooDeep, .duplicateKey, .numberOutOfRange, .invalidUTF8, .controlCharacterInString:
            return prefix + "\(code.phrase): expected \(expected), found \(found)"
        default:
            return prefix + "expected \(expected), found \(found)"
        }
    }
}
