import Foundation
import ModelKit
import ModelKitTesting
import Testing

struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("1", .integer(1)),
        ("1.0", .double(1.0)),
        ("-0.0", .double(-0.0)),
        ("1e2", .double(100)),
        ("1E+2", .double(100)),
        ("2.5e-3", .double(0.0025)),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1e-400", .double(0)),
        ("0.1", .double(0.1)),
        ("3.141592653589793238462643383279", .double(3.141592653589793)),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{8}\u{C}\n\r\t")),
        (#""\u00e9\u20AC\ud83d\ude00""#, .string("é€😀")),
        ("\"é😀\"", .string("é😀")),
        (" [ 1 , [ ] , { } ] ", .array([1, [], [:]])),
        ("\u{FEFF}{\"a\":1}", JSONValue.object(["a": 1])),
    ])
    func parsesValidDocuments(text: String, expected: JSONValue) throws {
        let value = try JSONValue(parsing: text)
        #expect(value == expected)
        if case .double(let number) = expected {
            #expect(value.doubleValue?.sign == number.sign)
        }
    }

    @Test func parsingKeepsKeyOrderForReprinting() throws {
        let text = #"{"zeta":1,"alpha":{"y":[1.0,2],"b":null},"mid":"x"}"#
        #expect(try JSONValue(parsing: text).formatted() == text)
    }

    @Test func parsesFromDataAndBytes() throws {
        #expect(try JSONValue(parsing: Data("[1]".utf8)) == [1])
        #expect(try JSONValue(parsing: Array("[1]".utf8)) == [1])
    }

    @Test(arguments: [
        ("", JSONParseError.Code.unexpectedEndOfInput, 1, 1, "a value"),
        ("[1, 2", .unexpectedEndOfInput, 1, 6, "',' or ']'"),
        ("{\"a\": 1,}", .unexpectedCharacter, 1, 9, "a string key"),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", .unexpectedCharacter, 3, 3, "',' or '}'"),
        ("[tru]", .unexpectedCharacter, 1, 5, "'true'"),
        ("01", .invalidNumber, 1, 2, "'.', 'e' or the end of the number after a leading '0'"),
        ("-", .unexpectedEndOfInput, 1, 2, "a digit"),
        ("-a", .invalidNumber, 1, 2, "a digit after '-'"),
        ("1.", .unexpectedEndOfInput, 1, 3, "a digit after '.'"),
        ("1.e5", .invalidNumber, 1, 3, "a digit after '.'"),
        ("1e", .unexpectedEndOfInput, 1, 3, "a digit in the exponent"),
        ("1e400", .numberOutOfRange, 1, 1, "a number within the range of Double"),
        ("NaN", .unexpectedCharacter, 1, 1, "a value"),
        ("\"a\\x\"", .invalidEscape, 1, 4, "one of '\"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u' after '\\'"),
        ("\"\\ud800\"", .invalidEscape, 1, 8, "a '\\u' low surrogate after a high surrogate"),
        ("\"\\udc00\"", .invalidEscape, 1, 2, "a high surrogate before a low surrogate"),
        ("\"\\u12G4\"", .invalidEscape, 1, 6, "four hexadecimal digits after '\\u'"),
        ("\"tab\there\"", .controlCharacterInString, 1, 5, "an escaped control character such as '\\n'"),
        ("\"open", .unexpectedEndOfInput, 1, 6, "'\"' to close the string"),
        ("{\"a\":1,\"a\":2}", .duplicateKey, 1, 8, "a key not used before in this object"),
        ("1 2", .unexpectedCharacter, 1, 3, "end of input"),
        ("{\"é\" 1}", .unexpectedCharacter, 1, 6, "':'"),
    ])
    func malformedInputReportsPositionAndExpectation(
        text: String,
        kind: JSONParseError.Code,
        line: Int,
        column: Int,
        expected: String
    ) {
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.code == kind && error.line == line && error.column == column && error.expected == expected
        }
    }

    @Test func errorDescriptionNamesLineColumnAndFoundCharacter() {
        do {
            _ = try JSONValue(parsing: "{\"a\": 1,}")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "line 1, column 9 (byte 8): expected a string key, found '}'")
        }
    }

    @Test func invalidUTF8PointsAtTheBadByte() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]
        do {
            _ = try JSONValue(parsing: bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.offset == 2)
            #expect(error.found == "byte 0xC3")
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            (error as? JSONParseError)?.code == .nestingTooDeep
        }
        #expect(throws: Never.self) {
            _ = try JSONValue(parsing: String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        }
    }

    @Test func maxDepthIsConfigurable() {
        #expect(throws: JSONParseError.self) {
            _ = try JSONValue(parsing: "[[[1]]]", maxDepth: 2)
        }
        #expect(throws: Never.self) {
            _ = try JSONValue(parsing: "[[[1]]]", maxDepth: 3)
        }
    }

    @Test func randomTreesRoundTripThroughCompactAndPrettyText() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<500 {
            let value = RandomJSON.value(using: &generator)
            for formatting in [JSONValue.Formatting.compact, .pretty] {
                let text = value.formatted(formatting)
                let parsed = try JSONValue(parsing: text)
                #expect(parsed == value, "\(text)")
                #expect(parsed.formatted(formatting) == text)
            }
        }
    }

    @Test func randomTreesMatchFoundationsReading() throws {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            let value = RandomJSON.value(using: &generator)
            let data = value.jsonData()
            let foundation = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            let reencoded = try JSONSerialization.data(withJSONObject: foundation, options: [.fragmentsAllowed])
            // Foundation reads our output; it merges 1 and 1.0, so compare with numbers normalised to Double.
            let reparsed = try JSONValue(parsing: reencoded)
            #expect(normalized(reparsed) == normalized(value))
        }
    }

    @Test func parserNeverCrashesOnRandomOrMutatedInput() {
        var generator = SeededGenerator(seed: 7)
        let seeds = [
            #"{"a":[1,2.5,-3e4,true,false,null,"x\n\u00e9"],"b":{"c":{}}}"#,
            #"[{"plate":"B-AB 123","year":2021}]"#,
            "\"\\ud83d\\ude00\"",
        ].map { Array($0.utf8) }
        var parsed = 0
        var failed = 0
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                bytes = seeds[round % seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.remove(at: position)
                    default:
                        bytes.insert(Array("{}[]\",:\\-.e0".utf8).randomElement(using: &generator) ?? 0, at: position)
                    }
                    if bytes.isEmpty { break }
                }
            }
            do {
                let value = try JSONValue(parsing: bytes)
                _ = value.formatted()
                parsed += 1
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                #expect(!error.description.isEmpty)
                failed += 1
            }
        }
        #expect(parsed + failed == 4000)
    }

    private func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer, .double:
            return .double(value.doubleValue ?? 0)
        case .array(let elements):
            return .array(elements.map(normalized))
        case .object(let object):
            return .object(JSONObject(object.map { ($0.key, normalized($0.value)) }))
        default:
            return value
        }
    }
}
