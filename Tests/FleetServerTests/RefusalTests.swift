import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import Testing

/// Refusals that name what is wrong: the method a path allows, the field and type a body got wrong, a date that
/// cannot be.
struct RefusalTests {
    @Test(arguments: [
        (HTTPRequest.Method.delete, "/v2/vehicles", "GET, HEAD, POST"),
        (.put, "/v2/vehicles/0193f1c2-0000-7000-8000-000000000000", "DELETE, GET, HEAD, PATCH"),
        (.patch, "/v1/vehicles/0193f1c2-0000-7000-8000-000000000000", "DELETE, GET, HEAD, PUT"),
        (.post, "/health", "GET, HEAD"),
    ])
    func anUnsupportedMethodOnAKnownPathIs405WithAllow(
        method: HTTPRequest.Method,
        path: String,
        allow: String
    )
        async throws
    {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(method, path, json: "{}")
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == allow)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(try response.jsonValue()["status"] == 405)
            let unknown = try await client.send(method, "/v2/trucks")
            #expect(unknown.status == .notFound)
        }
    }

    @Test func aFractionalYearNamesTheFieldAndTheTypeWithoutFoundationsWords() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            for (path, body, field) in [
                (
                    "/v2/vehicles", #"{"plate": "F-1", "make": "Volvo", "model": "FH", "modelYear": 2020.5}"#,
                    "modelYear"
                ),
                ("/v1/vehicles", #"{"tag": "F-2", "make": "MAN", "model": "TGX", "year": 2018.5}"#, "year"),
            ] {
                let response = try await client.send(.post, path, json: body)
                #expect(response.status == .badRequest)
                #expect(!response.text.contains("The given data"))
                let errors = try response.jsonValue()["errors"]
                #expect(errors?[0]?["path"] == .string(field))
                #expect(
                    errors?[0]?["message"]
                        == .string(
                            "\(field): expected an integer, found number \(field == "year" ? "2018.5" : "2020.5")"
                        )
                )
            }
        }
    }

    @Test func aServiceDateInTheFutureIs422WithItsPath() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let future = #""lastServiced": "2999-01-01T00:00:00Z""#
            let created = try await client.send(
                .post,
                "/v2/vehicles",
                json:
                    #"{"plate": "FU-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"due": false, \#(future)}}"#
            )
            #expect(created.status == .unprocessableContent)
            #expect(try created.jsonValue()["errors"]?[0]?["path"] == "maintenance.lastServiced")
            let ok = try await client.send(
                .post,
                "/v2/vehicles",
                json:
                    #"{"plate": "FU-2", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"due": false, "lastServiced": "2024-01-01T00:00:00Z"}}"#
            )
            #expect(ok.status == .created)
            let id = try #require(try ok.string("id"))
            let patched = try await client.send(
                .patch,
                "/v2/vehicles/\(id)",
                json: #"{"maintenance": {\#(future)}, "revision": 1}"#
            )
            #expect(patched.status == .unprocessableContent)
            #expect(try patched.jsonValue()["errors"]?[0]?["path"] == "maintenance.lastServiced")
        }
    }
}
