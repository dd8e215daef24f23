// This file imports RequestKit alone: the types a user names to call the API are reachable from it, without
// `@_exported import`. The package builds with `MemberImportVisibility` (SE-0444), under which the *members* of
// those types (their literals, `.get`, `HTTPField.Name`) are visible only where their own module is imported, so
// this file names the types and passes them to RequestKit without touching their members.
import RequestKit
import Testing

struct ImportOnlyRequestKitTests {
    func describe(_ json: JSONValue?, _ object: JSONObject?, _ version: APIVersion?) -> String {
        "\(json == nil) \(object == nil) \(version == nil)"
    }

    func describe(
        _ fields: HTTPFields?,
        _ field: HTTPField?,
        _ request: HTTPRequest?,
        _ response: HTTPResponse?
    ) -> String {
        "\(fields == nil) \(field == nil) \(request == nil) \(response == nil)"
    }

    @Test func theTypesOfTheAPIAreNamedThroughRequestKit() async throws {
        #expect(describe(nil, nil, nil) == "true true true")
        #expect(describe(nil, nil, nil, nil) == "true true true true")
        let parameters: RequestParameters = ["make": "volvo"]
        let value: JSONValue = parameters.jsonObject
        let mock = RequestKitVersion.userAgent
        #expect(describe(value, nil, nil) == "false true true")
        #expect(mock.hasPrefix("RequestKit/"))
    }
}
