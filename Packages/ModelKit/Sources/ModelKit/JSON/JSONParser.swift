/// A hand-written, single-pass JSON parser over UTF-8 bytes (RFC 8259).
///
/// Decisions (also documented on ``JSONValue/init(parsing:maxDepth:)-(Data,_)``):
/// - A leading UTF-8 byte order mark is skipped; any value may be the top-level value.
/// - Integers that fit `Int64` become `.integer`; integers beyond `Int64` become `.double` (rounded to the
///   nearest `Double`); a number with a fraction or exponent is always `.double`. `-0` becomes `.integer(0)`.
/// - A floating-point number whose magnitude overflows `Double` (`1e400`) is an error; one that underflows
///   (`1e-400`) becomes `0.0`.
/// - Duplicate keys in one object are an error; unpaired surrogate escapes are an error; strings must be
///   well-formed UTF-8.
/// - Nesting deeper than `maxDepth` arrays and objects is an error, so hostile input cannot overflow the stack.
struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position: Int
    private let maxDepth: Int
    private var depth: Int = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.position = 0
        self.maxDepth = maxDepth
    }

    /// Parses one complete JSON text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            parser.position = 3
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position < bytes.count {
            throw parser.error(.unexpectedCharacter, expected: "end of input")
        }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else {
            throw error(.unexpectedEndOfInput, expected: "a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw error(.unexpectedCharacter, expected: "a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = "'\(literal)'"
        let start = position
        for offset in 0..<literal.utf8CodeUnitCount {
            let at = start + offset
            guard at < bytes.count else {
                position = at
                throw error(.unexpectedEndOfInput, expected: expected)
            }
            guard bytes[at] == literal.utf8Start[offset] else {
                position = at
                throw error(.unexpectedCharacter, expected: expected)
            }
        }
        position = start + literal.utf8CodeUnitCount
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            throw error(.nestingTooDeep, expected: "at most \(maxDepth) nested arrays and objects")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, expected: "',' or ']'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default:
                throw error(.unexpectedCharacter, expected: "',' or ']'")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        var expectedKey = "a string key or '}'"
        while true {
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, expected: expectedKey)
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw error(.unexpectedCharacter, expected: expectedKey)
            }
            let keyStart = position
            let key = try parseString()
            if object.contains(key) {
                position = keyStart
                throw error(
                    .duplicateKey,
                    expected: "a key not used before in this object",
                    found: "\"\(ModelKitText.truncated(key))\""
                )
            }
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, expected: "':'")
            }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw error(.unexpectedCharacter, expected: "':'")
            }
            position += 1
            let value = try parseValue()
            object.append(key, value)
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, expected: "',' or '}'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                expectedKey = "a string key"
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default:
                throw error(.unexpectedCharacter, expected: "',' or '}'")
            }
        }
    }

    // MARK: - Strings

    /// Parses a string starting at its opening quote and leaves `position` after the closing quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        let start = position + 1
        var index = start
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                position = index + 1
                if isASCII {
                    return String(decoding: slice, as: UTF8.self)
                }
                return try validatedString(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start, firstEscape: index)
            }
            if byte < 0x20 {
                position = index
                throw error(.controlCharacterInString, expected: "an escaped control character such as '\\n'")
            }
            if byte >= 0x80 {
                isASCII = false
            }
            index += 1
        }
        position = index
        throw error(.unexpectedEndOfInput, expected: "'\"' to close the string")
    }

    /// The slow path for strings with escapes: decodes into a byte buffer, then validates it.
    private mutating func parseEscapedString(from start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(firstEscape - start + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var index = firstEscape
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                position = index + 1
                if let string = String(validating: buffer, as: UTF8.self) {
                    return string
                }
                // Report the first malformed byte of the raw input; escapes always produce valid UTF-8.
                return try validatedString(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start)
            case UInt8(ascii: "\\"):
                index = try decodeEscape(at: index, into: &buffer)
            case 0..<0x20:
                position = index
                throw error(.controlCharacterInString, expected: "an escaped control character such as '\\n'")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        position = index
        throw error(.unexpectedEndOfInput, expected: "'\"' to close the string")
    }

    /// Decodes the escape at `index` (a backslash) into `buffer` and returns the index after it.
    private mutating func decodeEscape(at index: Int, into buffer: inout [UInt8]) throws(JSONParseError) -> Int {
        let next = index + 1
        guard next < bytes.count else {
            position = next
            throw error(.unexpectedEndOfInput, expected: "an escape character")
        }
        switch bytes[next] {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: index, into: &buffer)
        default:
            position = next
            throw error(.invalidEscape, expected: "one of '\"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u' after '\\'")
        }
        return next + 1
    }

    private mutating func decodeUnicodeEscape(at index: Int, into buffer: inout [UInt8]) throws(JSONParseError) -> Int {
        let first = try readHex4(at: index + 2)
        var end = index + 6
        var scalarValue = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                position = min(end, bytes.count)
                throw error(.invalidEscape, expected: "a '\\u' low surrogate after a high surrogate")
            }
            let second = try readHex4(at: end + 2)
            guard (0xDC00...0xDFFF).contains(second) else {
                position = end
                throw error(.invalidEscape, expected: "a low surrogate (\\uDC00 to \\uDFFF)")
            }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            end += 6
        } else if (0xDC00...0xDFFF).contains(first) {
            position = index
            throw error(.invalidEscape, expected: "a high surrogate before a low surrogate")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            position = index
            throw error(.invalidEscape, expected: "a Unicode scalar value")
        }
        buffer.append(contentsOf: UTF8.encode(scalar).unsafelyUnwrapped)
        return end
    }

    private mutating func readHex4(at start: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for index in start..<(start + 4) {
            guard index < bytes.count else {
                position = index
                throw error(.unexpectedEndOfInput, expected: "four hexadecimal digits after '\\u'")
            }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default:
                position = index
                throw error(.invalidEscape, expected: "four hexadecimal digits after '\\u'")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Validates raw string bytes as UTF-8, pointing the error at the first malformed byte.
    private mutating func validatedString(
        _ slice: UnsafeBufferPointer<UInt8>,
        at start: Int
    ) throws(JSONParseError) -> String {
        if let string = String(validating: slice, as: UTF8.self) {
            return string
        }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = slice.makeIterator()
        var consumed = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                consumed += encoded.count
            case .error:
                position = start + consumed
                let badByte = slice[consumed]
                throw error(
                    .invalidUTF8,
                    expected: "well-formed UTF-8",
                    found: "byte 0x\(ModelKitText.hex(badByte))"
                )
            case .emptyInput:
                position = start
                throw error(.invalidUTF8, expected: "well-formed UTF-8")
            }
        }
    }

    // MARK: - Numbers

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var index = position
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative {
            index += 1
        }
        // Integer part.
        guard index < bytes.count else {
            position = index
            throw error(.unexpectedEndOfInput, expected: "a digit")
        }
        var mantissa: UInt64 = 0
        var mantissaOverflowed = false
        var significantDigits = 0
        var droppedIntegerDigits = 0
        let firstDigit = bytes[index]
        if firstDigit == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                position = index
                throw error(.invalidNumber, expected: "'.', 'e' or the end of the number after a leading '0'")
            }
        } else if isDigit(firstDigit) {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = UInt64(bytes[index] &- UInt8(ascii: "0"))
                if !mantissaOverflowed {
                    let (times10, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(digit)
                    if overflow1 || overflow2 {
                        mantissaOverflowed = true
                        droppedIntegerDigits += 1
                    } else {
                        mantissa = sum
                        significantDigits += 1
                    }
                } else {
                    droppedIntegerDigits += 1
                }
                index += 1
            }
        } else {
            position = index
            throw error(.invalidNumber, expected: "a digit after '-'")
        }
        var decimalExponent = droppedIntegerDigits
        var isInteger = true
        // Fraction.
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                position = index
                throw error(
                    index < bytes.count ? .invalidNumber : .unexpectedEndOfInput,
                    expected: "a digit after '.'"
                )
            }
            while index < bytes.count, isDigit(bytes[index]) {
                if !mantissaOverflowed {
                    let digit = UInt64(bytes[index] &- UInt8(ascii: "0"))
                    let (times10, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(digit)
                    if overflow1 || overflow2 {
                        mantissaOverflowed = true
                    } else {
                        mantissa = sum
                        decimalExponent -= 1
                    }
                }
                index += 1
            }
        }
        // Exponent.
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var exponentIsNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentIsNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                position = index
                throw error(
                    index < bytes.count ? .invalidNumber : .unexpectedEndOfInput,
                    expected: "a digit in the exponent"
                )
            }
            var exponent = 0
            while index < bytes.count, isDigit(bytes[index]) {
                // Clamp: anything beyond this overflows or underflows a Double anyway.
                if exponent < 100_000 {
                    exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                }
                index += 1
            }
            decimalExponent += exponentIsNegative ? -exponent : exponent
        }
        position = index
        if isInteger && !mantissaOverflowed {
            if isNegative {
                if mantissa <= UInt64(Int64.max) {
                    return .integer(-Int64(mantissa))
                }
                if mantissa == UInt64(Int64.max) + 1 {
                    return .integer(Int64.min)
                }
            } else if mantissa <= UInt64(Int64.max) {
                return .integer(Int64(mantissa))
            }
        }
        // Exact fast path (Clinger): both operands are exact Doubles, so one correctly rounded operation.
        if !mantissaOverflowed, mantissa <= (1 << 53), (-22...22).contains(decimalExponent) {
            var value = Double(mantissa)
            if decimalExponent >= 0 {
                value *= Self.powersOfTen[decimalExponent]
            } else {
                value /= Self.powersOfTen[-decimalExponent]
            }
            return .double(isNegative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            position = start
            throw error(
                .numberOutOfRange,
                expected: "a number within the range of Double",
                found: ModelKitText.truncated(text)
            )
        }
        return .double(value)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: - Whitespace and errors

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                position += 1
            default:
                return
            }
        }
    }

    /// An error at the current position; `found` defaults to a description of the byte there.
    private func error(_ code: JSONParseError.Code, expected: String, found: String? = nil) -> JSONParseError {
        var line = 1
        var column = 1
        for index in 0..<min(position, bytes.count) {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONParseError(
            code,
            offset: position,
            line: line,
            column: column,
            expected: expected,
            found: found ?? describeByte(at: position)
        )
    }

    private func describeByte(at index: Int) -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        switch byte {
        case UInt8(ascii: " "): return "a space"
        case UInt8(ascii: "\n"): return "a line feed"
        case UInt8(ascii: "\t"): return "a tab"
        case UInt8(ascii: "\r"): return "a carriage return"
        default: return "byte 0x\(ModelKitText.hex(byte))"
        }
    }
}
