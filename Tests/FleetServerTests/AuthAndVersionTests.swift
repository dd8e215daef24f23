import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import Testing

/// Writes need the daemon's bearer token; reads do not.
@Suite("Authorization")
struct AuthorizationTests {
    @Test("writes without the right bearer token get 401 with WWW-Authenticate and write nothing")
    func writesNeedTheToken() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let stored = try await client.createV2(plate: "AUTH-1")
            let id = stored.id.uuidString.lowercased()
            let before = try await client.send(.get, "/v2/vehicles", token: nil).text

            let v2Body = #"{"plate": "AUTH-2", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            let v1Body = #"{"tag": "AUTH-2", "make": "MAN", "model": "TGX", "year": 2018}"#
            let writes: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/v2/vehicles", v2Body),
                (.patch, "/v2/vehicles/\(id)", #"{"model": "FH16", "revision": 1}"#),
                (.delete, "/v2/vehicles/\(id)", nil),
                (.post, "/v1/vehicles", v1Body),
                (.put, "/v1/vehicles/\(id)", v1Body),
                (.delete, "/v1/vehicles/\(id)", nil),
                // Authorization comes before any other check.
                (.delete, "/v2/vehicles/not-a-uuid", nil),
                (.post, "/v2/vehicles", "{"),
            ]
            let authorizations: [String?] = [
                nil,
                "Bearer wrong-token",
                "Bearer \(ServerFixture.token)x",
                "Bearer",
                "Bearer ",
                "Basic \(Data("fleet:\(ServerFixture.token)".utf8).base64EncodedString())",
                "Token \(ServerFixture.token)",
                ServerFixture.token,
            ]
            for (method, uri, body) in writes {
                for authorization in authorizations {
                    var headers = HTTPFields()
                    if let authorization { headers[.authorization] = authorization }
                    let response = try await client.send(method, uri, json: body, token: nil, headers: headers)
                    let label = "\(method) \(uri) with \(authorization ?? "no Authorization")"
                    #expect(response.status == .unauthorized, "\(label)")
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="fleetd""#, "\(label)")
                    #expect(response.headers[.contentType] == Problem.mediaType, "\(label)")
                    #expect(try response.problem().type == ProblemType.unauthorized, "\(label)")
                }
            }
            #expect(try await client.send(.get, "/v2/vehicles", token: nil).text == before)
            #expect(try await client.send(.get, "/v2/vehicles/\(id)", token: nil).status == .ok)
        }
    }

    @Test("the scheme is case-insensitive")
    func schemeIsCaseInsensitive() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            var headers = HTTPFields()
            headers[.authorization] = "bearer \(ServerFixture.token)"
            let response = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "CASE-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
                token: nil,
                headers: headers
            )
            #expect(response.status == .created)
        }
    }

    @Test("reads need no token")
    func readsAreOpen() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let stored = try await client.createV2(plate: "READ-1")
            let id = stored.id.uuidString.lowercased()
            for uri in [
                "/v2/vehicles", "/v2/vehicles/\(id)", "/v1/vehicles", "/v1/vehicles/\(id)", "/health", "/metrics",
                "/openapi/v1.json", "/openapi/v2.json",
            ] {
                let response = try await client.send(.get, uri, token: nil)
                #expect(response.status == .ok, "\(uri)")
                #expect(response.headers[.wwwAuthenticate] == nil, "\(uri)")
            }
            // A wrong token on a read is ignored, not refused.
            #expect(try await client.send(.get, "/v2/vehicles", token: "wrong-token").status == .ok)
        }
    }
}

/// v1 and v2 are two views of one store.
@Suite("Versions share one store")
struct VersionTests {
    static func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    @Test("create in v2, read in v1; a v1 PUT keeps lastServiced; a v1 delete removes it from v2")
    func v2ToV1AndBack() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            // Serviced recently, so only the flag decides whether it is due.
            let recent = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-7 * 86_400))
            let created = try await client.createV2(
                plate: "VER-1",
                make: "Scania",
                model: "R500",
                modelYear: 2019,
                maintenance: #"{"due": false, "lastServiced": "\#(recent)"}"#
            )
            let id = created.id.uuidString.lowercased()
            #expect(created.revision == 1)
            #expect(created.maintenance == V2.MaintenanceState(due: false, lastServiced: try Self.date(recent)))

            let v1 = try await client.send(.get, "/v1/vehicles/\(id)", token: nil)
            #expect(v1.status == .ok)
            let v1JSON = try v1.jsonValue()
            #expect(Set(v1JSON.objectValue?.keys ?? []) == ["id", "tag", "make", "model", "year", "needsMaintenance"])
            #expect(
                try v1.decode(V1.Vehicle.self)
                    == V1.Vehicle(
                        id: created.id,
                        tag: "VER-1",
                        make: "Scania",
                        model: "R500",
                        year: 2019,
                        needsMaintenance: false
                    )
            )
            #expect(
                try await client.send(.get, "/v1/vehicles", token: nil).decode([V1.Vehicle].self).map(\.tag)
                    == ["VER-1"]
            )

            let put = try await client.send(
                .put,
                "/v1/vehicles/\(id)",
                json: #"{"tag": "VER-1B", "make": "Scania", "model": "R450", "year": 2018, "needsMaintenance": true}"#
            )
            #expect(put.status == .ok, "\(put.text)")
            #expect(try put.decode(V1.Vehicle.self).needsMaintenance == true)

            let afterPut = try await client.send(.get, "/v2/vehicles/\(id)", token: nil)
            let v2 = try afterPut.decode(V2.Vehicle.self)
            #expect(v2.plate == "VER-1B")
            #expect(v2.model == "R450")
            #expect(v2.modelYear == 2018)
            #expect(v2.maintenance == V2.MaintenanceState(due: true, lastServiced: try Self.date(recent)))
            #expect(v2.revision == 2, "a v1 write bumps the revision too")
            #expect(afterPut.headers[.eTag] == #""2""#)

            // Clearing the flag in v1 leaves the recent service date, so it is no longer due.
            let cleared = try await client.send(
                .put,
                "/v1/vehicles/\(id)",
                json: #"{"tag": "VER-1B", "make": "Scania", "model": "R450", "year": 2018}"#
            )
            #expect(try cleared.decode(V1.Vehicle.self).needsMaintenance == false)
            let v2Cleared = try await client.send(.get, "/v2/vehicles/\(id)", token: nil).decode(V2.Vehicle.self)
            #expect(v2Cleared.maintenance == V2.MaintenanceState(due: false, lastServiced: try Self.date(recent)))
            #expect(v2Cleared.revision == 3)

            #expect(try await client.send(.delete, "/v1/vehicles/\(id)").status == .noContent)
            let gone = try await client.send(.get, "/v2/vehicles/\(id)", token: nil)
            #expect(gone.status == .notFound)
            #expect(try gone.problem().type == ProblemType.notFound)
            #expect(try await client.listAllV2().vehicles.isEmpty)
            #expect(try await client.send(.get, "/v1/vehicles", token: nil).text == "[]")
        }
    }

    @Test("create in v1, read and change in v2, read back in v1")
    func v1ToV2() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.send(
                .post,
                "/v1/vehicles",
                json: #"{"tag": "VER-2", "make": "MAN", "model": "TGX", "year": 2017, "needsMaintenance": true}"#
            )
            #expect(created.status == .created)
            let v1 = try created.decode(V1.Vehicle.self)
            let id = v1.id.uuidString.lowercased()
            #expect(created.headers[.location] == "/v1/vehicles/\(id)")

            let v2 = try await client.send(.get, "/v2/vehicles/\(id)", token: nil).decode(V2.Vehicle.self)
            #expect(v2.plate == "VER-2")
            #expect(v2.modelYear == 2017)
            #expect(v2.maintenance == V2.MaintenanceState(due: true, lastServiced: nil))
            #expect(v2.revision == 1)

            let serviced = try await client.send(
                .patch,
                "/v2/vehicles/\(id)",
                json: #"{"maintenance": {"due": false, "lastServiced": "2026-01-01T00:00:00Z"}}"#,
                headers: [.ifMatch: #""1""#]
            )
            #expect(serviced.status == .ok, "\(serviced.text)")
            let back = try await client.send(.get, "/v1/vehicles/\(id)", token: nil).decode(V1.Vehicle.self)
            #expect(back.tag == "VER-2")
            #expect(back.year == 2017)
            #expect(back.needsMaintenance == (try serviced.decode(V2.Vehicle.self).maintenance.due))

            #expect(try await client.send(.delete, "/v2/vehicles/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/v1/vehicles/\(id)", token: nil).status == .notFound)
        }
    }
}
