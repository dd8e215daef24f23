import Foundation
import ModelKit
import Testing

/// Every ModelKit error is a struct over a code with the same shape: `code` to compare with the static members,
/// `shortDescription` (the code's name, fit for a metric label) and `description` for people.
@Suite("ModelKit's errors share one template")
struct ErrorTemplateTests {
    struct Item: Codable, Equatable {
        var year: Int
    }

    @Test("code, shortDescription and description of each error")
    func template() throws {
        let versioning = #expect(throws: VersioningError.self) { try APIVersion(parsing: "two") }
        #expect(versioning?.code == .invalidVersion)
        #expect(versioning?.shortDescription == "invalidVersion")
        #expect(versioning?.description.hasPrefix("invalid API version: ") == true)

        let parse = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1,") }
        #expect(parse?.code == .unexpectedEndOfInput)
        #expect(parse?.shortDescription == "unexpectedEndOfInput")

        let mime = #expect(throws: MIMETypeError.self) { try MIMEType(parsing: "text") }
        #expect(mime?.code == .malformed)
        #expect(mime?.shortDescription == "malformed")

        let id = #expect(throws: ModelIDError.self) { try ModelID<Item>(parsing: "not-a-uuid") }
        #expect(id?.code == .invalidUUID)
        #expect(id?.shortDescription == "invalidUUID")

        let decoding = #expect(throws: ModelDecodingError.self) {
            try ModelCoding.decode(Item.self, from: Data(#"{"year": "soon"}"#.utf8))
        }
        #expect(decoding?.code == .typeMismatch)
        #expect(decoding?.shortDescription == "typeMismatch")
        #expect(decoding?.path == "year")
    }

    @Test("a short description is one of a fixed set of names, whatever the input")
    func shortDescriptionsAreBounded() {
        let inputs = ["", "x", String(repeating: "v", count: 10_000), "v0", "v-1", "vv2"]
        var names: Set<String> = []
        for input in inputs {
            do {
                _ = try APIVersion(parsing: input)
            } catch {
                names.insert(error.shortDescription)
            }
        }
        #expect(names.isSubset(of: ["invalidVersion", "unsupportedVersion"]))
    }
}
