import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import Testing

/// Inputs at the edges that the daemon must accept: JSON media types with parameters or a `+json` suffix,
/// percent-encoded query values, plates with spaces in cursors, and the largest and smallest page sizes.
@Suite("Accepted input at the edges")
struct AcceptedInputTests {
    @Test("JSON media types with parameters or a +json suffix are accepted")
    func jsonMediaTypes() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let types = ["application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.fleet+json"]
            for (index, type) in types.enumerated() {
                let response = try await client.send(
                    .post,
                    "/v2/vehicles",
                    json: #"{"plate": "MT-\#(index)", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
                    headers: [.contentType: type]
                )
                #expect(response.status == .created, "\(type): \(response.text)")
            }
            let id = try #require(try await client.listAllV2().vehicles.first?.id.uuidString.lowercased())
            let patch = try await client.send(
                .patch,
                "/v2/vehicles/\(id)",
                json: #"{"model": "FH16", "revision": 1}"#,
                headers: [.contentType: "application/merge-patch+json"]
            )
            #expect(patch.status == .ok, "\(patch.text)")
        }
    }

    @Test("percent-encoded filters, plates with spaces across pages, and limits 1 and 500")
    func encodedQueries() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let plates = ["AB 1", "AB 2", "AB 3", "ab-1", "Z 9"]
            for plate in plates.reversed() {
                _ = try await client.createV2(plate: plate, make: plate == "Z 9" ? "Volvo" : "Mercedes Benz")
            }
            let mercedes = try await client.listAllV2("make=Mercedes%20Benz&limit=1")
            #expect(mercedes.vehicles.map(\.plate) == ["AB 1", "AB 2", "AB 3", "ab-1"])
            #expect(mercedes.pages == 4)
            let all = try await client.listAllV2("limit=500")
            #expect(all.vehicles.map(\.plate) == plates.sorted())
            #expect(all.pages == 1)
            let one = try await client.listAllV2("limit=1")
            #expect(one.vehicles.map(\.plate) == plates.sorted())
        }
    }

    @Test("a v2 create with every member, and the Location it answers with")
    func fullCreate() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(
                .post,
                "/v2/vehicles",
                json:
                    #"{"plate": "FULL-1", "make": "DAF", "model": "XF", "modelYear": 2100, "maintenance": {"due": true, "lastServiced": "2026-01-02T03:04:05Z"}}"#
            )
            #expect(response.status == .created)
            #expect(response.headers[.contentType] == "application/json")
            let vehicle = try response.decode(V2.Vehicle.self)
            #expect(response.headers[.location] == "/v2/vehicles/\(vehicle.id.uuidString.lowercased())")
            #expect(vehicle.modelYear == 2100)
            #expect(vehicle.maintenance.due)
            #expect(vehicle.maintenance.lastServiced == ISO8601DateFormatter().date(from: "2026-01-02T03:04:05Z"))
            let location = try #require(response.headers[.location])
            #expect(try await client.send(.get, location, token: nil).decode(V2.Vehicle.self) == vehicle)
        }
    }

    @Test(
        "lastServiced round-trips with fractional seconds and offsets",
        arguments: [
            ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"),
            ("2024-01-02T03:04:05.250Z", "2024-01-02T03:04:05.250Z"),
            ("2024-01-02T05:04:05+02:00", "2024-01-02T03:04:05Z"),
        ]
    )
    func lastServicedFormats(input: String, utc: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.createV2(
                plate: "DATE-1",
                maintenance: #"{"lastServiced": "\#(input)"}"#
            )
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions =
                utc.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
            let expected = try #require(formatter.date(from: utc))
            let lastServiced = try #require(created.maintenance.lastServiced)
            #expect(abs(lastServiced.timeIntervalSince(expected)) < 0.001)
            let id = created.id.uuidString.lowercased()
            let read = try await client.send(.get, "/v2/vehicles/\(id)", token: nil).decode(V2.Vehicle.self)
            #expect(read == created)
        }
    }

    @Test("a patch that changes nothing checks the revision and answers the vehicle as stored, writing nothing")
    func patchChangingNothing() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.createV2(plate: "SAME-1")
            let path = "/v2/vehicles/\(created.id.uuidString.lowercased())"
            for (body, ifMatch) in [(#"{"revision": 1}"#, nil), ("{}", #""1""#), (#"{"maintenance": {}}"#, "*")] {
                var headers = HTTPFields()
                if let ifMatch { headers[.ifMatch] = ifMatch }
                let response = try await client.send(.patch, path, json: body, headers: headers)
                #expect(response.status == .ok, "\(body): \(response.text)")
                #expect(response.headers[.eTag] == #""1""#)
                #expect(try response.decode(V2.Vehicle.self) == created)
            }
            let read = try await client.send(.get, path, token: nil)
            #expect(try read.decode(V2.Vehicle.self).revision == 1)
        }
    }

    @Test("If-Match: * changes or removes whatever revision is stored")
    func ifMatchAny() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.createV2(plate: "ANY-1")
            let path = "/v2/vehicles/\(created.id.uuidString.lowercased())"
            _ = try await client.send(.patch, path, json: #"{"model": "FH13", "revision": 1}"#)
            let patched = try await client.send(.patch, path, json: #"{"model": "FH16"}"#, headers: [.ifMatch: "*"])
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(try patched.decode(V2.Vehicle.self).revision == 3)
            let removed = try await client.send(.delete, path, headers: [.ifMatch: "*"])
            #expect(removed.status == .noContent)
        }
    }

    @Test("any cursor of the form the daemon gives out is a position in the list")
    func cursorsOfTheDaemonsForm() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            for plate in ["A 1", "B 1", "C 1"] { _ = try await client.createV2(plate: plate) }
            // "cDE6" is "p1:"; "Qg" is "B" with four spare bits; "_w" is a byte that is not UTF-8 (read as U+FFFD).
            for (cursor, plates) in [
                ("cDE6Qg", ["B 1", "C 1"]), ("cDE6QiAx", ["C 1"]), ("cDE6", ["A 1", "B 1", "C 1"]), ("cDE6_w", []),
            ] {
                let response = try await client.send(.get, "/v2/vehicles?cursor=\(cursor)", token: nil)
                #expect(response.status == .ok, "\(cursor): \(response.text)")
                let page = try response.decode(V2.VehiclePage.self)
                #expect(page.items.map(\.plate) == plates, "\(cursor)")
            }
        }
    }

    @Test("null for an optional member is the same as leaving it out, in both versions")
    func nullMembers() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.createV2(plate: "NULL-1", maintenance: #"{"lastServiced": null}"#)
            #expect(created.maintenance.lastServiced == nil)
            let v1 = try await client.send(
                .post,
                "/v1/vehicles",
                json: #"{"tag": "NULL-2", "make": "Volvo", "model": "FH", "year": 2020, "needsMaintenance": null}"#
            )
            #expect(v1.status == .created, "\(v1.text)")
            #expect(try v1.jsonValue()["needsMaintenance"] == .bool(false))
            let patched = try await client.send(
                .patch,
                "/v2/vehicles/\(created.id.uuidString.lowercased())",
                json: #"{"plate": null, "make": "DAF", "maintenance": {"due": null}, "revision": 1}"#
            )
            #expect(patched.status == .ok, "\(patched.text)")
            let vehicle = try patched.decode(V2.Vehicle.self)
            #expect(vehicle.plate == "NULL-1")
            #expect(vehicle.make == "DAF")
            #expect(vehicle.maintenance.due == created.maintenance.due)
        }
    }
}
