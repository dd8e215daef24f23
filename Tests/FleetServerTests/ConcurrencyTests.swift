import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import Testing

/// v2 revisions guard updates and deletes; plates are unique, also under concurrent creates.
@Suite("Optimistic concurrency and unique plates")
struct ConcurrencyTests {
    static func patch(
        _ client: any TestClientProtocol,
        _ id: String,
        _ json: String,
        ifMatch: String? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let ifMatch { headers[.ifMatch] = ifMatch }
        return try await client.send(.patch, "/v2/vehicles/\(id)", json: json, headers: headers)
    }

    static func stored(_ client: any TestClientProtocol, _ id: String) async throws -> (V2.Vehicle, String?) {
        let response = try await client.send(.get, "/v2/vehicles/\(id)", token: nil)
        try #require(response.status == .ok, "\(response.text)")
        return (try response.decode(V2.Vehicle.self), response.headers[.eTag])
    }

    @Test("If-Match and body revisions: 412 stale, 409 stale, 428 neither, * accepted, one bump per update")
    func revisions() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let created = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "REV-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            )
            #expect(created.status == .created)
            #expect(created.headers[.eTag] == #""1""#)
            let vehicle = try created.decode(V2.Vehicle.self)
            let id = vehicle.id.uuidString.lowercased()
            #expect(created.headers[.location] == "/v2/vehicles/\(id)")
            #expect(vehicle.revision == 1)

            let first = try await Self.patch(client, id, #"{"model": "FH16"}"#, ifMatch: #""1""#)
            #expect(first.status == .ok, "\(first.text)")
            #expect(try first.decode(V2.Vehicle.self).revision == 2)
            #expect(first.headers[.eTag] == #""2""#)

            let staleHeader = try await Self.patch(client, id, #"{"model": "FM"}"#, ifMatch: #""1""#)
            #expect(staleHeader.status == .preconditionFailed)
            #expect(staleHeader.headers[.contentType] == Problem.mediaType)
            #expect(try staleHeader.problem().type == ProblemType.preconditionFailed)

            let staleBody = try await Self.patch(client, id, #"{"model": "FM", "revision": 1}"#)
            #expect(staleBody.status == .conflict)
            #expect(try staleBody.problem().type == ProblemType.conflict)

            let neither = try await Self.patch(client, id, #"{"model": "FM"}"#)
            #expect(neither.status.code == 428)
            #expect(try neither.problem().type == ProblemType.preconditionRequired)

            var (current, etag) = try await Self.stored(client, id)
            #expect(current.model == "FH16", "refused updates changed nothing")
            #expect(current.revision == 2)
            #expect(etag == #""2""#)

            let any = try await Self.patch(client, id, #"{"make": "Volvo Trucks"}"#, ifMatch: "*")
            #expect(any.status == .ok)
            #expect(try any.decode(V2.Vehicle.self).revision == 3)
            #expect(any.headers[.eTag] == #""3""#)

            let body = try await Self.patch(client, id, #"{"modelYear": 2021, "revision": 3}"#)
            #expect(body.status == .ok)
            #expect(try body.decode(V2.Vehicle.self).revision == 4)

            // If-Match with spaces around it is still the revision.
            let spaced = try await Self.patch(client, id, #"{"modelYear": 2022}"#, ifMatch: #" "4" "#)
            #expect(spaced.status == .ok)

            (current, etag) = try await Self.stored(client, id)
            #expect(current.revision == 5)
            #expect(etag == #""\#(current.revision)""#)
            #expect(current.make == "Volvo Trucks")
            #expect(current.model == "FH16")
            #expect(current.modelYear == 2022)

            // A v1 replacement has no revision check and bumps by one too.
            let put = try await client.send(
                .put,
                "/v1/vehicles/\(id)",
                json: #"{"tag": "REV-1", "make": "Volvo", "model": "FH", "year": 2020}"#
            )
            #expect(put.status == .ok)
            #expect(try await Self.stored(client, id).1 == #""6""#)
        }
    }

    @Test("DELETE with a stale If-Match is 412 and keeps the vehicle; a current one deletes it")
    func deleteWithRevision() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let vehicle = try await client.createV2(plate: "DEL-1")
            let id = vehicle.id.uuidString.lowercased()
            #expect(try await Self.patch(client, id, #"{"model": "X"}"#, ifMatch: #""1""#).status == .ok)

            let stale = try await client.send(.delete, "/v2/vehicles/\(id)", headers: [.ifMatch: #""1""#])
            #expect(stale.status == .preconditionFailed)
            #expect(try stale.problem().type == ProblemType.preconditionFailed)
            #expect(try await Self.stored(client, id).0.revision == 2)

            let current = try await client.send(.delete, "/v2/vehicles/\(id)", headers: [.ifMatch: #""2""#])
            #expect(current.status == .noContent)
            #expect(try await client.send(.get, "/v2/vehicles/\(id)", token: nil).status == .notFound)
            #expect(try await client.send(.delete, "/v2/vehicles/\(id)").status == .notFound)

            // `*` and no If-Match delete whatever the revision.
            let other = try await client.createV2(plate: "DEL-2").id.uuidString.lowercased()
            let third = try await client.createV2(plate: "DEL-3").id.uuidString.lowercased()
            #expect(
                try await client.send(.delete, "/v2/vehicles/\(other)", headers: [.ifMatch: "*"]).status == .noContent
            )
            #expect(try await client.send(.delete, "/v2/vehicles/\(third)").status == .noContent)
            #expect(try await client.listAllV2().vehicles.isEmpty)
        }
    }

    @Test("creating or renaming onto a taken plate is 409 duplicate-plate, in both versions")
    func duplicatePlates() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let first = try await client.createV2(plate: "DUP-1")
            let second = try await client.createV2(plate: "DUP-2")
            let secondID = second.id.uuidString.lowercased()

            let v2Create = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "DUP-1", "make": "MAN", "model": "TGX", "modelYear": 2015}"#
            )
            #expect(v2Create.status == .conflict)
            #expect(v2Create.headers[.contentType] == Problem.mediaType)
            #expect(try v2Create.problem().type == ProblemType.duplicatePlate)

            let v1Create = try await client.send(
                .post,
                "/v1/vehicles",
                json: #"{"tag": "DUP-1", "make": "MAN", "model": "TGX", "year": 2015}"#
            )
            #expect(v1Create.status == .conflict)
            #expect(try v1Create.problem().type == ProblemType.duplicatePlate)

            let rename = try await Self.patch(client, secondID, #"{"plate": "DUP-1", "revision": 1}"#)
            #expect(rename.status == .conflict)
            #expect(try rename.problem().type == ProblemType.duplicatePlate)

            let v1Rename = try await client.send(
                .put,
                "/v1/vehicles/\(secondID)",
                json: #"{"tag": "DUP-1", "make": "Volvo", "model": "FH", "year": 2020}"#
            )
            #expect(v1Rename.status == .conflict)
            #expect(try v1Rename.problem().type == ProblemType.duplicatePlate)

            // A stale revision is reported first, whatever else the change would break: re-read, then retry.
            let staleRename = try await Self.patch(client, secondID, #"{"plate": "DUP-1", "revision": 7}"#)
            #expect(staleRename.status == .conflict)
            #expect(try staleRename.problem().type == ProblemType.conflict)

            #expect(try await client.listAllV2().vehicles == [first, second])

            // Keeping one's own plate is not a duplicate.
            let same = try await Self.patch(client, secondID, #"{"plate": "DUP-2", "model": "FM", "revision": 1}"#)
            #expect(same.status == .ok)
            // A freed plate can be taken.
            #expect(
                try await client.send(.delete, "/v2/vehicles/\(first.id.uuidString.lowercased())").status == .noContent
            )
            let taken = try await Self.patch(client, secondID, #"{"plate": "DUP-1", "revision": 2}"#)
            #expect(taken.status == .ok)
            #expect(try await client.listAllV2().vehicles.map(\.plate) == ["DUP-1"])
        }
    }

    @Test("ten concurrent creates with one plate: exactly one 201, nine 409s, one stored")
    func concurrentCreates() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let response = try await client.send(
                            .post,
                            "/v2/vehicles",
                            json: #"{"plate": "RACE-1", "make": "Make \#(index)", "model": "M", "modelYear": 2020}"#
                        )
                        let type = response.status == .created ? "" : (try response.problem().type)
                        return (Int(response.status.code), type)
                    }
                }
                var statuses: [(Int, String)] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1)
            #expect(statuses.filter { $0.0 == 409 && $0.1 == ProblemType.duplicatePlate }.count == 9)
            let stored = try await client.listAllV2().vehicles
            #expect(stored.map(\.plate) == ["RACE-1"])
            #expect(try await client.send(.get, "/v1/vehicles", token: nil).decode([V1.Vehicle].self).count == 1)
        }
    }
}

@Suite("Concurrent updates")
struct ConcurrentUpdateTests {
    @Test("ten concurrent PATCHes with one If-Match: exactly one wins, nine get 412")
    func concurrentPatches() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let id = try await client.createV2(plate: "RACE-2").id.uuidString.lowercased()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let response = try await client.send(
                            .patch,
                            "/v2/vehicles/\(id)",
                            json: #"{"model": "Model \#(index)"}"#,
                            headers: [.ifMatch: #""1""#]
                        )
                        return Int(response.status.code)
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.sorted() == [200] + Array(repeating: 412, count: 9))
            let stored = try await client.send(.get, "/v2/vehicles/\(id)", token: nil).decode(V2.Vehicle.self)
            #expect(stored.revision == 2)
        }
    }

    @Test("ten concurrent v1 replacements all succeed, and the revision counts each of them")
    func concurrentReplacements() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let id = try await client.createV2(plate: "RACE-3").id.uuidString.lowercased()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let response = try await client.send(
                            .put,
                            "/v1/vehicles/\(id)",
                            json: #"{"tag": "RACE-3", "make": "MAN", "model": "Model \#(index)", "year": 2018}"#
                        )
                        return Int(response.status.code)
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 10))
            let stored = try await client.send(.get, "/v2/vehicles/\(id)", token: nil)
            #expect(try stored.decode(V2.Vehicle.self).revision == 11)
            #expect(stored.headers[.eTag] == #""11""#)
        }
    }
}
