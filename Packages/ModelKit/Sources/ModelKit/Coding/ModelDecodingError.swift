import Foundation

/// A decoding failure that says where and what, such as
/// `vehicles[3].modelYear: expected Int, found string "abc"`.
///
/// ``ModelCoding/decode(_:from:)`` throws it in place of Foundation's `DecodingError`. It carries the
/// ``path`` rendered as people write it, what was ``expected`` and what was ``found`` (a short, bounded
/// description of the JSON value at that path), and for malformed JSON the parser's ``jsonError`` with line and
/// column. Compare ``code`` with the static members of ``Code``.
public struct ModelDecodingError: Error, Sendable, CustomStringConvertible {
    /// A kind of decoding failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case typeMismatch = "type mismatch"
            case missingKey = "missing key"
            case nullValue = "null value"
            case invalidData = "invalid data"
            case malformedJSON = "malformed JSON"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The value has the wrong JSON type, such as a string where a number belongs.
        public static let typeMismatch = Code(.typeMismatch)
        /// A required key (or array element) is absent.
        public static let missingKey = Code(.missingKey)
        /// The value is `null` where a non-optional value is required.
        public static let nullValue = Code(.nullValue)
        /// The value has the right JSON type but is not acceptable, such as a corrupt date or UUID.
        public static let invalidData = Code(.invalidData)
        /// The input is not JSON at all; ``ModelDecodingError/jsonError`` says where.
        public static let malformedJSON = Code(.malformedJSON)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`typeMismatch`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short phrase for people, used in the error's description.
        var phrase: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`typeMismatch`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// Where it went wrong, such as `vehicles[3].modelYear`; empty for the top-level value.
    public let path: String
    /// What the model required there, such as `Int` or `an ISO 8601 date …`; `nil` when not known.
    public let expected: String?
    /// A bounded description of the JSON value found there, such as `string "abc"`; `nil` when not known.
    public let found: String?
    /// For ``Code/malformedJSON``, the parser's error with position and expectation.
    public let jsonError: JSONParseError?

    /// The path, then what was expected and found, in one bounded line.
    public var description: String {
        let prefix = path.isEmpty ? "" : "\(ModelKitText.truncated(path, limit: 200)): "
        let expected = expected.map { ModelKitText.truncated($0, limit: 120) }
        let found = found.map { ModelKitText.truncated($0, limit: 120) }
        switch code {
        case .malformedJSON:
            return "malformed JSON at \(jsonError.map(String.init(describing:)) ?? "an unknown position")"
        case .missingKey:
            return prefix + "missing required \(expected ?? "key")"
        default:
            var text = prefix + (expected.map { $0.hasPrefix("expected") ? $0 : "expected \($0)" } ?? "invalid value")
            if let found {
                text += ", found \(found)"
            }
            return text
        }
    }

    init(_ code: Code, path: String, expected: String?, found: String?, jsonError: JSONParseError? = nil) {
        self.code = code
        self.path = path
        self.expected = expected
        self.found = found
        self.jsonError = jsonError
    }

    /// Wraps a parse error of the input.
    init(malformedJSON error: JSONParseError) {
        self.init(.malformedJSON, path: "", expected: error.expected, found: error.found, jsonError: error)
    }

    /// Maps Foundation's error, looking up the found value in a parse of `input` (failure path only).
    init(_ error: DecodingError, input: Data) {
        let document: JSONValue?
        do {
            document = try JSONValue(parsing: input)
        } catch {
            self.init(malformedJSON: error)
            return
        }
        func found(at components: [FieldPath.Component]) -> JSONValue? {
            document.flatMap { FieldPath.lookUp(components, in: $0) }
        }
        switch error {
        case .typeMismatch(let type, let context):
            let components = FieldPath.components(of: context.codingPath)
            let value = found(at: components)
            self.init(
                value?.isNull == true ? .nullValue : .typeMismatch,
                path: FieldPath.render(components),
                expected: Self.typeName(type),
                found: value.map(FieldPath.describe)
            )
        case .valueNotFound(let type, let context):
            let components = FieldPath.components(of: context.codingPath)
            let value = found(at: components)
            if let value {
                self.init(
                    value.isNull ? .nullValue : .typeMismatch,
                    path: FieldPath.render(components),
                    expected: Self.typeName(type),
                    found: FieldPath.describe(value)
                )
            } else {
                // An unkeyed container ran out of elements.
                self.init(.missingKey, path: FieldPath.render(components), expected: "element", found: nil)
            }
        case .keyNotFound(let key, let context):
            let components = FieldPath.components(of: context.codingPath + [key])
            self.init(.missingKey, path: FieldPath.render(components), expected: "key", found: nil)
        case .dataCorrupted(let context):
            var components = FieldPath.components(of: context.codingPath)
            // Foundation reports a number that fits no integer type (`2020.5` or `1e30` for an `Int`) as "not
            // valid JSON" without a coding path, although the document parsed. When it holds exactly one number
            // that no integer type can take, that is the one: report its path.
            var expected = Self.expectation(from: context.debugDescription)
            if components.isEmpty, let document {
                let candidates = FieldPath.nonIntegralNumbers(in: document)
                if candidates.count == 1 {
                    components = candidates[0]
                    expected = "an integer"
                }
            }
            let value = found(at: components)
            self.init(
                .invalidData,
                path: FieldPath.render(components),
                expected: expected,
                found: value.map(FieldPath.describe)
            )
        @unknown default:
            self.init(
                .invalidData,
                path: "",
                expected: nil,
                found: ModelKitText.truncated(String(describing: error), limit: 120)
            )
        }
    }

    /// A readable name for the type Foundation reports: `Int`, `String`, `array`, `object`.
    private static func typeName(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array<") || name.hasPrefix("[") { return "array" }
        if name.hasPrefix("Dictionary<") || name.hasPrefix("[String") { return "object" }
        if name.hasPrefix("Optional<"), name.hasSuffix(">") {
            return String(name.dropFirst("Optional<".count).dropLast())
        }
        return name
    }

    /// The decoder's own message when it states an expectation (ModelKit's decoders word theirs so), otherwise
    /// "a valid value": Foundation's own sentences ("The given data was not valid JSON.") never reach a message.
    private static func expectation(from debugDescription: String) -> String {
        if debugDescription.hasPrefix("expected") {
            return ModelKitText.truncated(debugDescription, limit: 120)
        }
        return "a valid value"
    }
}
