/// Scans media types and `Accept` headers (RFC 9110 tokens, quoted strings, optional whitespace).
struct MIMETypeScanner {
    private let text: String
    private let characters: [Character]
    private var position = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    var isAtEnd: Bool {
        position >= characters.count
    }

    /// Parses `type/subtype *(; name=value)`; with `allowingQuality`, a `q` parameter ends the media type's
    /// parameters and is returned separately (anything after it is an accept extension and is skipped).
    mutating func mediaType(allowingQuality: Bool) throws(MIMETypeError) -> (mediaType: MIMEType, quality: Double?) {
        skipWhitespace()
        let type = try token(expected: "a type such as 'application'")
        guard consume("/") else {
            throw error(.malformed, expected: "'/' after the type")
        }
        let subtype = try token(expected: "a subtype such as 'json'")
        if type == "*" && subtype != "*" {
            throw error(.invalidWildcard, expected: "'*/*' or a concrete type such as 'text/*'")
        }
        var parameters: [MIMEType.Parameter] = []
        var quality: Double?
        while true {
            skipWhitespace()
            guard consume(";") else { break }
            skipWhitespace()
            if isAtEnd || peek == "," {
                break  // A trailing ';' is tolerated.
            }
            let name = try token(expected: "a parameter name").lowercased()
            skipWhitespace()
            guard consume("=") else {
                throw error(.malformed, expected: "'=' after the parameter name")
            }
            skipWhitespace()
            let valueStart = position
            let value = peek == "\"" ? try quotedString() : try token(expected: "a parameter value")
            if allowingQuality && name == "q" && quality == nil {
                guard let parsed = Self.quality(value) else {
                    position = valueStart
                    throw error(.invalidQuality, expected: "a quality from 0 to 1 with at most three decimals")
                }
                quality = parsed
            } else if quality == nil {
                parameters.append(MIMEType.Parameter(name: name, value: value))
            }
        }
        return (MIMEType(type: type, subtype: subtype, parameters: parameters), quality)
    }

    mutating func expectEnd() throws(MIMETypeError) {
        skipWhitespace()
        if !isAtEnd {
            throw error(.malformed, expected: "';' or the end of the media type")
        }
    }

    /// Consumes a `,` between list elements; returns `false` at the end.
    mutating func listSeparator() throws(MIMETypeError) -> Bool {
        skipWhitespace()
        if isAtEnd { return false }
        guard consume(",") else {
            throw error(.malformed, expected: "',' between media ranges")
        }
        // Empty list elements (`a, , b`) are allowed by RFC 9110's list syntax.
        while true {
            skipWhitespace()
            if !consume(",") { break }
        }
        return !isAtEnd
    }

    mutating func skipWhitespace() {
        while position < characters.count, characters[position] == " " || characters[position] == "\t" {
            position += 1
        }
    }

    private var peek: Character? {
        position < characters.count ? characters[position] : nil
    }

    private mutating func consume(_ character: Character) -> Bool {
        guard peek == character else { return false }
        position += 1
        return true
    }

    private mutating func token(expected: String) throws(MIMETypeError) -> String {
        let start = position
        while let character = peek, Self.isTokenCharacter(character) {
            position += 1
        }
        guard position > start else {
            throw error(.malformed, expected: expected)
        }
        return String(characters[start..<position])
    }

    private mutating func quotedString() throws(MIMETypeError) -> String {
        position += 1  // opening quote
        var value = ""
        while let character = peek {
            position += 1
            switch character {
            case "\"":
                return value
            case "\\":
                guard let escaped = peek else {
                    throw error(.malformed, expected: "a character after '\\'")
                }
                position += 1
                value.append(escaped)
            default:
                value.append(character)
            }
        }
        throw error(.malformed, expected: "'\"' to close the quoted value")
    }

    private func error(_ code: MIMETypeError.Code, expected: String) -> MIMETypeError {
        MIMETypeError(code, offset: position, expected: expected, input: text)
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
        }
    }

    /// `value` as is when it is a non-empty token, otherwise as a quoted string.
    static func quotedIfNeeded(_ value: String) -> String {
        if !value.isEmpty, value.allSatisfy(isTokenCharacter) {
            return value
        }
        var quoted = "\""
        for character in value {
            if character == "\"" || character == "\\" {
                quoted.append("\\")
            }
            quoted.append(character)
        }
        quoted.append("\"")
        return quoted
    }

    /// RFC 9110 `qvalue`: `0`, `0.5`, `1.000`; `nil` otherwise.
    private static func quality(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            if whole == "1" && fraction.contains(where: { $0 != "0" }) { return nil }
        }
        guard parts.count == 2 else { return whole == "1" ? 1 : 0 }
        var value = whole == "1" ? 1000 : 0
        var scale = 100
        for digit in parts[1] {
            value += (digit.wholeNumberValue ?? 0) * scale
            scale /= 10
        }
        return Double(value) / 1000
    }
}
