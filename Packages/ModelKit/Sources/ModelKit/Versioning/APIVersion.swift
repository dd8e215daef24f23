/// A version of a client API: `v1`, `v2`, ….
///
/// Versions are whole numbers starting at 1, compare numerically and print as `v1`. Parse the path segment or
/// header value a client sends with ``init(parsing:)``.
public struct APIVersion: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The version number, 1 or more.
    public let number: Int

    /// A version by number; numbers below 1 are clamped to 1.
    public init(_ number: Int) {
        self.number = max(1, number)
    }

    /// Parses `v2`, `V2` or `2`.
    ///
    /// - Throws: ``VersioningError`` with code ``VersioningError/Code/invalidVersion`` for anything else.
    public init(parsing text: String) throws(VersioningError) {
        var digits = Substring(text)
        if let first = digits.first, first == "v" || first == "V" {
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(digits), number >= 1
        else {
            throw VersioningError(.invalidVersion, detail: ModelKitText.quoted(text))
        }
        self.number = number
    }

    /// Version 1.
    public static let v1 = APIVersion(1)
    /// Version 2.
    public static let v2 = APIVersion(2)
    /// Version 3.
    public static let v3 = APIVersion(3)

    /// Orders by number.
    public static func < (lhs: APIVersion, rhs: APIVersion) -> Bool {
        lhs.number < rhs.number
    }

    /// `v1`, `v2`, …
    public var description: String { "v\(number)" }

    /// Decodes from the string form (`"v2"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try APIVersion(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected an API version such as v2"
            )
        }
    }

    /// Encodes the string form (`"v2"`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
