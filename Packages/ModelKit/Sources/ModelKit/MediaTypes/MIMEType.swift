/// A media type such as `application/json; charset=utf-8` (RFC 9110, section 8.3.1).
///
/// Type, subtype and parameter names are case-insensitive and stored in lowercase; parameter values keep their
/// case (except that ``charset`` is reported in lowercase). Parsing accepts whitespace around `;` and `=`, and
/// quoted parameter values with backslash escapes. A type may be a wildcard (`*/*`, `text/*`), which makes it a
/// *media range* for ``matches(_:)`` and ``AcceptHeader``.
///
/// ```swift
/// let type = try MIMEType(parsing: "application/problem+json; charset=UTF-8")
/// type.suffix       // "json"
/// type.charset      // "utf-8"
/// try MIMEType(parsing: "application/*").matches(type)   // true
/// ```
public struct MIMEType: Sendable, Hashable, CustomStringConvertible {
    /// A `name=value` parameter; the name is lowercase.
    public struct Parameter: Sendable, Hashable {
        /// The lowercase parameter name.
        public let name: String
        /// The value, unquoted, in its original case.
        public let value: String

        /// Creates a parameter; the name is lowercased.
        public init(name: String, value: String) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    /// The lowercase top-level type, such as `application`, or `*`.
    public let type: String
    /// The lowercase subtype, such as `problem+json`, or `*`.
    public let subtype: String
    /// The parameters in the order given.
    public let parameters: [Parameter]

    /// Creates a media type from parts; type and subtype are lowercased. The parts are not validated: use
    /// ``init(parsing:)`` for text from outside.
    public init(type: String, subtype: String, parameters: [Parameter] = []) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters
    }

    /// Parses a media type such as `text/html; charset="utf-8"`.
    ///
    /// - Throws: ``MIMETypeError`` naming the offset and what was expected.
    public init(parsing text: String) throws(MIMETypeError) {
        var scanner = MIMETypeScanner(text)
        self = try scanner.mediaType(allowingQuality: false).mediaType
        try scanner.expectEnd()
    }

    /// The value of the parameter `name` (case-insensitive), or `nil`.
    public func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// The lowercase `charset` parameter, or `nil`.
    public var charset: String? {
        parameter("charset")?.lowercased()
    }

    /// The structured syntax suffix: `json` for `application/problem+json`, `nil` without a `+`.
    public var suffix: String? {
        guard let plus = subtype.lastIndex(of: "+") else { return nil }
        let suffix = subtype[subtype.index(after: plus)...]
        return suffix.isEmpty ? nil : String(suffix)
    }

    /// Whether the body is JSON: `application/json` or any `+json` type.
    public var isJSON: Bool {
        (type == "application" && subtype == "json") || suffix == "json"
    }

    /// Whether type or subtype is `*`.
    public var isWildcard: Bool {
        type == "*" || subtype == "*"
    }

    /// The same type and subtype without parameters.
    public var withoutParameters: MIMEType {
        MIMEType(type: type, subtype: subtype)
    }

    /// The same media type with the parameter `name` set to `value` (replacing an existing one).
    public func setting(_ name: String, to value: String) -> MIMEType {
        let parameter = Parameter(name: name, value: value)
        var parameters = parameters.filter { $0.name != parameter.name }
        parameters.append(parameter)
        return MIMEType(type: type, subtype: subtype, parameters: parameters)
    }

    /// Whether `self`, read as a media range, includes `other`.
    ///
    /// `*/*` matches everything, `text/*` every `text` type, and a concrete type the same type and subtype.
    /// Every parameter of `self` must be present in `other` with an equal value (case-insensitively for
    /// `charset`); `other` may have more parameters.
    public func matches(_ other: MIMEType) -> Bool {
        if type != "*" {
            guard type == other.type else { return false }
            if subtype != "*" {
                guard subtype == other.subtype else { return false }
            }
        }
        return parameters.allSatisfy { parameter in
            guard let value = other.parameter(parameter.name) else { return false }
            if parameter.name == "charset" {
                return value.lowercased() == parameter.value.lowercased()
            }
            return value == parameter.value
        }
    }

    /// `type/subtype; name=value`, quoting values that are not tokens.
    public var description: String {
        var text = "\(type)/\(subtype)"
        for parameter in parameters {
            text += "; \(parameter.name)=\(MIMETypeScanner.quotedIfNeeded(parameter.value))"
        }
        return text
    }

    /// Equal when type, subtype and parameters agree; parameter order does not matter and `charset` values
    /// compare case-insensitively.
    public static func == (lhs: MIMEType, rhs: MIMEType) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype && lhs.normalizedParameters == rhs.normalizedParameters
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(subtype)
        hasher.combine(normalizedParameters)
    }

    private var normalizedParameters: [Parameter] {
        parameters.map { $0.name == "charset" ? Parameter(name: $0.name, value: $0.value.lowercased()) : $0 }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
    }
}

extension MIMEType {
    /// `*/*`, which matches every media type.
    public static let any = MIMEType(type: "*", subtype: "*")
    /// `application/json`.
    public static let json = MIMEType(type: "application", subtype: "json")
    /// `application/problem+json` (RFC 9457 problem details).
    public static let problemJSON = MIMEType(type: "application", subtype: "problem+json")
    /// `text/plain`.
    public static let plainText = MIMEType(type: "text", subtype: "plain")
    /// `text/html`.
    public static let html = MIMEType(type: "text", subtype: "html")
    /// `application/x-www-form-urlencoded`.
    public static let formURLEncoded = MIMEType(type: "application", subtype: "x-www-form-urlencoded")
    /// `application/octet-stream`.
    public static let octetStream = MIMEType(type: "application", subtype: "octet-stream")
    /// `multipart/form-data`.
    public static let multipartFormData = MIMEType(type: "multipart", subtype: "form-data")
}
