import ModelKit
import ModelKitTesting
import Testing

struct MediaTypeTests {
    @Test func parsingIsCaseInsensitiveAndToleratesWhitespaceAndQuotes() throws {
        let type = try MIMEType(parsing: " Application/Problem+JSON ;  Charset = \"UTF-8\" ; Profile=\"a \\\"b\\\"\" ")
        #expect(type.type == "application")
        #expect(type.subtype == "problem+json")
        #expect(type.charset == "utf-8")
        #expect(type.parameter("PROFILE") == "a \"b\"")
        #expect(type.suffix == "json")
        #expect(type.isJSON)
        #expect(type.description == #"application/problem+json; charset=UTF-8; profile="a \"b\"""#)
        #expect(type == (try MIMEType(parsing: "application/problem+json; profile=\"a \\\"b\\\"\"; charset=utf-8")))
    }

    @Test func constantsHaveTheirUsualNames() {
        #expect(MIMEType.json.description == "application/json")
        #expect(MIMEType.problemJSON.description == "application/problem+json")
        #expect(MIMEType.plainText.description == "text/plain")
        #expect(MIMEType.formURLEncoded.description == "application/x-www-form-urlencoded")
        #expect(MIMEType.octetStream.description == "application/octet-stream")
        #expect(MIMEType.multipartFormData.description == "multipart/form-data")
        #expect(MIMEType.json.isJSON && !MIMEType.plainText.isJSON)
        #expect(MIMEType.json.suffix == nil)
    }

    @Test func settingAParameterReplacesIt() {
        let type = MIMEType.plainText.setting("charset", to: "utf-8").setting("Charset", to: "latin1")
        #expect(type.description == "text/plain; charset=latin1")
        #expect(type.withoutParameters == .plainText)
    }

    @Test(arguments: [
        ("*/*", "application/json", true),
        ("application/*", "application/json", true),
        ("text/*", "application/json", false),
        ("application/json", "application/json; charset=utf-8", true),
        ("application/json; charset=UTF-8", "application/json; charset=utf-8", true),
        ("application/json; charset=utf-8", "application/json", false),
        ("application/json", "application/problem+json", false),
    ])
    func rangesMatchTypes(range: String, type: String, matches: Bool) throws {
        #expect(try MIMEType(parsing: range).matches(MIMEType(parsing: type)) == matches)
    }

    @Test(arguments: [
        ("", MIMETypeError.Code.malformed, 0),
        ("text", .malformed, 4),
        ("text/", .malformed, 5),
        ("/json", .malformed, 0),
        ("*/json", .invalidWildcard, 6),
        ("text/plain; charset", .malformed, 19),
        ("text/plain; charset=\"utf-8", .malformed, 26),
        ("text/plain extra", .malformed, 11),
        ("te xt/plain", .malformed, 2),
        ("text/plain; =x", .malformed, 12),
    ])
    func malformedTypesThrowTypedErrors(text: String, kind: MIMETypeError.Code, offset: Int) {
        #expect {
            _ = try MIMEType(parsing: text)
        } throws: { error in
            guard let error = error as? MIMETypeError else { return false }
            return error.code == kind && error.offset == offset
        }
    }

    @Test func acceptPicksTheOfferedTypeWithTheHighestQuality() throws {
        let accept = try AcceptHeader(parsing: "application/json;q=0.9, application/problem+json, */*;q=0.1")
        #expect(accept.bestMatch(from: [.plainText, .json]) == .json)
        #expect(accept.bestMatch(from: [.json, .problemJSON]) == .problemJSON)
        #expect(accept.bestMatch(from: [.plainText]) == .plainText)
        #expect(accept.quality(of: .plainText) == 0.1)
    }

    @Test func theMostSpecificRangeDecidesEvenWhenItRejects() throws {
        let accept = try AcceptHeader(parsing: "text/*;q=0.5, text/html;q=0, text/plain;format=flowed, */*;q=0.2")
        #expect(accept.quality(of: .html) == 0)
        #expect(accept.quality(of: MIMEType(type: "text", subtype: "csv")) == 0.5)
        #expect(accept.quality(of: MIMEType.plainText.setting("format", to: "flowed")) == 1)
        #expect(accept.quality(of: .plainText) == 0.5)
        #expect(accept.quality(of: .json) == 0.2)
        #expect(accept.bestMatch(from: [.html]) == nil)
        #expect(!accept.accepts(.html))
    }

    @Test func tiesGoToTheServersFirstOffer() throws {
        let accept = try AcceptHeader(parsing: "application/json, text/plain")
        #expect(accept.bestMatch(from: [.plainText, .json]) == .plainText)
    }

    @Test func anEmptyHeaderAcceptsEverything() throws {
        let accept = try AcceptHeader(parsing: "  ")
        #expect(accept.entries.isEmpty)
        #expect(accept.bestMatch(from: [.json]) == .json)
    }

    @Test func acceptExtensionsAfterQualityAreIgnoredAndEmptyElementsSkipped() throws {
        let accept = try AcceptHeader(parsing: "text/plain; q=0.5; level=1, , application/json")
        #expect(accept.entries.count == 2)
        #expect(accept.entries[0].range == .plainText)
        #expect(accept.description == "text/plain;q=0.5, application/json")
    }

    @Test(arguments: [
        "text/plain;q=2", "text/plain;q=0.1234", "text/plain;q=1.5", "text/plain;q=abc", "text/plain;q=-1",
    ])
    func invalidQualitiesThrow(header: String) {
        #expect {
            _ = try AcceptHeader(parsing: header)
        } throws: { error in
            (error as? MIMETypeError)?.code == .invalidQuality
        }
    }

    @Test func randomMediaTypesRoundTripThroughTheirDescription() throws {
        var generator = SeededGenerator(seed: 2024)
        let tokens = ["application", "text", "vnd.fleet+json", "x-custom", "json", "a1!#$&^_`|~"]
        let values = ["utf-8", "a b", "quote\"d", "back\\slash", "", "ümlaut", "x;y", "1.0"]
        for _ in 0..<300 {
            var type = MIMEType(
                type: tokens.randomElement(using: &generator) ?? "text",
                subtype: tokens.randomElement(using: &generator) ?? "plain"
            )
            for index in 0..<Int.random(in: 0...3, using: &generator) {
                type = type.setting("p\(index)", to: values.randomElement(using: &generator) ?? "")
            }
            let parsed = try MIMEType(parsing: type.description)
            #expect(parsed == type)
            #expect(parsed.parameters == type.parameters)
        }
    }

    @Test func parsersNeverCrashOnRandomInput() {
        var generator = SeededGenerator(seed: 11)
        let alphabet = Array("abcXYZ/*;=,\"\\ q0.1+-\t\u{0}é")
        for _ in 0..<3000 {
            let text = String(
                (0..<Int.random(in: 0...30, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator) ?? "a"
                }
            )
            if let type = try? MIMEType(parsing: text) {
                #expect((try? MIMEType(parsing: type.description)) == type)
            }
            if let accept = try? AcceptHeader(parsing: text) {
                _ = accept.bestMatch(from: [.json, .plainText])
                #expect(accept.entries.allSatisfy { (0...1).contains($0.quality) })
            }
        }
    }
}
