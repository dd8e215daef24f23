import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import NIOCore
import Testing

/// One request the daemon must refuse, and how.
struct BadRequest: Sendable, CustomTestStringConvertible {
    let name: String
    let method: HTTPRequest.Method
    /// The URI; `{id}` is a stored vehicle, `{missing}` an ID no vehicle has.
    let uri: String
    var body: String?
    var contentType: String? = "application/json"
    var ifMatch: String?
    let status: Int
    let type: String
    /// The paths of `errors`, when the problem must list some.
    var paths: [String]?

    var testDescription: String { "\(method) \(uri): \(name)" }

    init(
        _ name: String,
        _ method: HTTPRequest.Method,
        _ uri: String,
        body: String? = nil,
        contentType: String? = "application/json",
        ifMatch: String? = nil,
        status: Int,
        type: String,
        paths: [String]? = nil
    ) {
        self.name = name
        self.method = method
        self.uri = uri
        self.body = body
        self.contentType = contentType
        self.ifMatch = ifMatch
        self.status = status
        self.type = type
        self.paths = paths
    }

    /// Sends the request and checks the problem that comes back.
    func check(_ client: any TestClientProtocol, id: String) async throws {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(ServerFixture.token)"
        if body != nil, let contentType { headers[.contentType] = contentType }
        if let ifMatch { headers[.ifMatch] = ifMatch }
        let resolved = uri.replacingOccurrences(of: "{id}", with: id)
            .replacingOccurrences(of: "{missing}", with: UUID().uuidString.lowercased())
        let response = try await client.executeRequest(
            uri: resolved,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        #expect(Int(response.status.code) == status, "\(testDescription): \(response.text)")
        #expect(response.headers[.contentType] == Problem.mediaType, "\(testDescription)")
        let problem = try response.problem()
        #expect(problem.type == type, "\(testDescription): \(problem)")
        #expect(problem.status == status, "\(testDescription)")
        if let paths {
            #expect((problem.errors ?? []).map(\.path).sorted() == paths.sorted(), "\(testDescription): \(problem)")
        }
    }
}

/// Bad requests of every kind get a precise 4xx problem, and none of them changes the store.
@Suite("Bad input writes nothing")
struct BadInputTests {
    static let malformed = ProblemType.malformedBody
    static let unknown = ProblemType.unknownField
    static let validation = ProblemType.validation
    static let badQuery = ProblemType.badQuery
    static let unsupported = ProblemType.unsupportedMediaType

    static let v2Requests: [BadRequest] = [
        // Bodies of POST /v2/vehicles.
        .init("malformed JSON", .post, "/v2/vehicles", body: #"{"plate": "X-1","#, status: 400, type: malformed),
        .init("trailing garbage", .post, "/v2/vehicles", body: #"{"plate": "X-1"} x"#, status: 400, type: malformed),
        .init("not an object", .post, "/v2/vehicles", body: "[1, 2]", status: 400, type: malformed),
        .init("a string", .post, "/v2/vehicles", body: #""plate""#, status: 400, type: malformed),
        .init("empty body", .post, "/v2/vehicles", body: "", status: 400, type: malformed),
        .init(
            "too deeply nested",
            .post,
            "/v2/vehicles",
            body: #"{"maintenance": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
            status: 400,
            type: malformed
        ),
        .init(
            "model year as a string",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": "2020"}"#,
            status: 400,
            type: malformed,
            paths: ["modelYear"]
        ),
        .init(
            "model year with a fraction",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020.5}"#,
            status: 400,
            type: malformed
        ),
        .init(
            "model year beyond Int",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 99999999999999999999999}"#,
            status: 400,
            type: malformed
        ),
        .init(
            "plate as a number",
            .post,
            "/v2/vehicles",
            body: #"{"plate": 12, "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            status: 400,
            type: malformed,
            paths: ["plate"]
        ),
        .init(
            "maintenance.due as a string",
            .post,
            "/v2/vehicles",
            body:
                #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"due": "yes"}}"#,
            status: 400,
            type: malformed,
            paths: ["maintenance.due"]
        ),
        .init(
            "maintenance.lastServiced not a date",
            .post,
            "/v2/vehicles",
            body:
                #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"lastServiced": "yesterday"}}"#,
            status: 400,
            type: malformed,
            paths: ["maintenance.lastServiced"]
        ),
        .init(
            "maintenance not an object",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": 5}"#,
            status: 400,
            type: malformed,
            paths: ["maintenance"]
        ),
        .init(
            "null plate",
            .post,
            "/v2/vehicles",
            body: #"{"plate": null, "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            status: 400,
            type: malformed,
            paths: ["plate"]
        ),
        .init(
            "missing model",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "modelYear": 2020}"#,
            status: 400,
            type: malformed,
            paths: ["model"]
        ),
        .init(
            "unknown member",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "colour": "red"}"#,
            status: 400,
            type: unknown,
            paths: ["colour"]
        ),
        .init(
            "v1 member names",
            .post,
            "/v2/vehicles",
            body: #"{"tag": "X-1", "make": "Volvo", "model": "FH", "year": 2020}"#,
            status: 400,
            type: unknown,
            paths: ["tag", "year"]
        ),
        .init(
            "unknown nested member",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"x": 1}}"#,
            status: 400,
            type: unknown,
            paths: ["maintenance.x"]
        ),
        .init(
            "unknown members at two levels",
            .post,
            "/v2/vehicles",
            body:
                #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020, "id": "x", "maintenance": {"flagged": true}}"#,
            status: 400,
            type: unknown,
            paths: ["id", "maintenance.flagged"]
        ),
        .init(
            "every field breaks a rule",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "", "make": " ", "model": "", "modelYear": 1800}"#,
            status: 422,
            type: validation,
            paths: ["plate", "make", "model", "modelYear"]
        ),
        .init(
            "names and a plate of white space only, as the schema's patterns say",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "   ", "make": "\t", "model": " \r\n ", "modelYear": 2020}"#,
            status: 422,
            type: validation,
            paths: ["plate", "make", "model"]
        ),
        .init(
            "plate too long and year too late",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "ABCDEFGHIJKLMNOPQ", "make": "Volvo", "model": "FH", "modelYear": 2101}"#,
            status: 422,
            type: validation,
            paths: ["plate", "modelYear"]
        ),
        .init(
            "plate with a forbidden character",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X_1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            status: 422,
            type: validation,
            paths: ["plate"]
        ),
        .init(
            "text/plain",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            contentType: "text/plain",
            status: 415,
            type: unsupported
        ),
        .init(
            "application/xml",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            contentType: "application/xml",
            status: 415,
            type: unsupported
        ),
        .init(
            "no content type",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            contentType: nil,
            status: 415,
            type: unsupported
        ),
        .init(
            "unparsable content type",
            .post,
            "/v2/vehicles",
            body: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#,
            contentType: "json",
            status: 415,
            type: unsupported
        ),
        // PATCH /v2/vehicles/{id}.
        .init("malformed patch", .patch, "/v2/vehicles/{id}", body: "{", status: 400, type: malformed),
        .init(
            "revision as a string",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16", "revision": "1"}"#,
            status: 400,
            type: malformed,
            paths: ["revision"]
        ),
        .init(
            "unknown nested member in a patch",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"revision": 1, "maintenance": {"x": true}}"#,
            status: 400,
            type: unknown,
            paths: ["maintenance.x"]
        ),
        .init(
            "unknown member in a patch",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"revision": 1, "id": "3b4f0a7e-0000-7000-8000-000000000000"}"#,
            status: 400,
            type: unknown,
            paths: ["id"]
        ),
        .init(
            "patch breaking rules",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"revision": 0, "plate": "", "make": "", "model": " ", "modelYear": 3000}"#,
            status: 422,
            type: validation,
            paths: ["revision", "plate", "make", "model", "modelYear"]
        ),
        .init(
            "patch changing nothing, on a stale revision",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"revision": 7}"#,
            status: 409,
            type: ProblemType.conflict
        ),
        .init(
            "patch changing nothing, without a revision",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"maintenance": {}}"#,
            status: 428,
            type: ProblemType.preconditionRequired
        ),
        .init(
            "patch without a revision",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            status: 428,
            type: ProblemType.preconditionRequired
        ),
        .init(
            "stale If-Match",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: #""7""#,
            status: 412,
            type: ProblemType.preconditionFailed
        ),
        .init(
            "stale body revision",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16", "revision": 7}"#,
            status: 409,
            type: ProblemType.conflict
        ),
        .init(
            "If-Match without quotes",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: "1",
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "weak If-Match",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: #"W/"1""#,
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "If-Match revision 0",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: #""0""#,
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "If-Match with a leading zero",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: #""01""#,
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "If-Match with a sign",
            .delete,
            "/v2/vehicles/{id}",
            ifMatch: #""+1""#,
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "If-Match not a number",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16"}"#,
            ifMatch: #""abc""#,
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "patch as text/plain",
            .patch,
            "/v2/vehicles/{id}",
            body: #"{"model": "FH16", "revision": 1}"#,
            contentType: "text/plain",
            status: 415,
            type: unsupported
        ),
        .init(
            "patch of a bad UUID",
            .patch,
            "/v2/vehicles/not-a-uuid",
            body: #"{"model": "FH16", "revision": 1}"#,
            status: 400,
            type: badQuery,
            paths: ["path.id"]
        ),
        .init(
            "patch of a missing vehicle",
            .patch,
            "/v2/vehicles/{missing}",
            body: #"{"model": "FH16", "revision": 1}"#,
            status: 404,
            type: ProblemType.notFound
        ),
        // DELETE /v2/vehicles/{id}.
        .init(
            "delete of a bad UUID",
            .delete,
            "/v2/vehicles/12345",
            status: 400,
            type: badQuery,
            paths: ["path.id"]
        ),
        .init(
            "delete with a bad If-Match",
            .delete,
            "/v2/vehicles/{id}",
            ifMatch: "one",
            status: 400,
            type: badQuery,
            paths: ["header.If-Match"]
        ),
        .init(
            "delete with a stale If-Match",
            .delete,
            "/v2/vehicles/{id}",
            ifMatch: #""2""#,
            status: 412,
            type: ProblemType.preconditionFailed
        ),
        .init(
            "delete of a missing vehicle",
            .delete,
            "/v2/vehicles/{missing}",
            status: 404,
            type: ProblemType.notFound
        ),
        // Reads with bad parameters.
        .init("get of a bad UUID", .get, "/v2/vehicles/xyz", status: 400, type: badQuery, paths: ["path.id"]),
        .init("get of a missing vehicle", .get, "/v2/vehicles/{missing}", status: 404, type: ProblemType.notFound),
        .init("limit=0", .get, "/v2/vehicles?limit=0", status: 400, type: badQuery, paths: ["query.limit"]),
        .init("limit=abc", .get, "/v2/vehicles?limit=abc", status: 400, type: badQuery, paths: ["query.limit"]),
        .init("limit=501", .get, "/v2/vehicles?limit=501", status: 400, type: badQuery, paths: ["query.limit"]),
        .init("limit=-1", .get, "/v2/vehicles?limit=-1", status: 400, type: badQuery, paths: ["query.limit"]),
        .init(
            "cursor=garbage",
            .get,
            "/v2/vehicles?cursor=garbage",
            status: 400,
            type: badQuery,
            paths: ["query.cursor"]
        ),
        .init("empty cursor", .get, "/v2/vehicles?cursor=", status: 400, type: badQuery, paths: ["query.cursor"]),
        .init(
            "cursor in base64 rather than base64url",
            .get,
            "/v2/vehicles?cursor=cDE6QUI%2BMQ",
            status: 400,
            type: badQuery,
            paths: ["query.cursor"]
        ),
        .init(
            "padded cursor",
            .get,
            "/v2/vehicles?cursor=cDE6QUI%3D",
            status: 400,
            type: badQuery,
            paths: ["query.cursor"]
        ),
        .init(
            "cursor that is base64 but not ours",
            .get,
            "/v2/vehicles?cursor=aGVsbG8",
            status: 400,
            type: badQuery,
            paths: ["query.cursor"]
        ),
        .init("due=maybe", .get, "/v2/vehicles?due=maybe", status: 400, type: badQuery, paths: ["query.due"]),
        .init(
            "modelYear no vehicle can have",
            .get,
            "/v2/vehicles?modelYear=3000",
            status: 400,
            type: badQuery,
            paths: ["query.modelYear"]
        ),
        .init(
            "modelYear beyond any integer",
            .get,
            "/v2/vehicles?modelYear=-14078027042003889850155008",
            status: 400,
            type: badQuery,
            paths: ["query.modelYear"]
        ),
        .init(
            "modelYear=new",
            .get,
            "/v2/vehicles?modelYear=new",
            status: 400,
            type: badQuery,
            paths: ["query.modelYear"]
        ),
        .init("make=", .get, "/v2/vehicles?make=", status: 400, type: badQuery, paths: ["query.make"]),
        .init(
            "unknown parameter",
            .get,
            "/v2/vehicles?colour=red",
            status: 400,
            type: badQuery,
            paths: ["query.colour"]
        ),
        .init(
            "repeated parameter",
            .get,
            "/v2/vehicles?limit=1&limit=2",
            status: 400,
            type: badQuery,
            paths: ["query.limit"]
        ),
        .init(
            "several bad parameters",
            .get,
            "/v2/vehicles?limit=0&due=maybe&modelYear=x",
            status: 400,
            type: badQuery,
            paths: ["query.limit", "query.due", "query.modelYear"]
        ),
    ]

    static let v1Requests: [BadRequest] = [
        .init("malformed JSON", .post, "/v1/vehicles", body: #"{"tag": "#, status: 400, type: malformed),
        .init("not an object", .post, "/v1/vehicles", body: "true", status: 400, type: malformed),
        .init(
            "year as a string",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": "2018"}"#,
            status: 400,
            type: malformed,
            paths: ["year"]
        ),
        .init(
            "needsMaintenance as a string",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018, "needsMaintenance": "no"}"#,
            status: 400,
            type: malformed,
            paths: ["needsMaintenance"]
        ),
        .init(
            "missing tag",
            .post,
            "/v1/vehicles",
            body: #"{"make": "MAN", "model": "TGX", "year": 2018}"#,
            status: 400,
            type: malformed,
            paths: ["tag"]
        ),
        .init(
            "v2 member names",
            .post,
            "/v1/vehicles",
            body: #"{"plate": "X-1", "make": "MAN", "model": "TGX", "modelYear": 2018}"#,
            status: 400,
            type: unknown,
            paths: ["plate", "modelYear"]
        ),
        .init(
            "maintenance object",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018, "maintenance": {"due": true}}"#,
            status: 400,
            type: unknown,
            paths: ["maintenance"]
        ),
        .init(
            "every field breaks a rule",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "", "make": "", "model": "  ", "year": 1000}"#,
            status: 422,
            type: validation,
            paths: ["tag", "make", "model", "year"]
        ),
        .init(
            "text/plain",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018}"#,
            contentType: "text/plain; charset=utf-8",
            status: 415,
            type: unsupported
        ),
        .init(
            "no content type",
            .post,
            "/v1/vehicles",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018}"#,
            contentType: nil,
            status: 415,
            type: unsupported
        ),
        .init("malformed PUT", .put, "/v1/vehicles/{id}", body: "{]", status: 400, type: malformed),
        .init(
            "PUT with a revision",
            .put,
            "/v1/vehicles/{id}",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018, "revision": 1}"#,
            status: 400,
            type: unknown,
            paths: ["revision"]
        ),
        .init(
            "PUT missing members",
            .put,
            "/v1/vehicles/{id}",
            body: #"{"tag": "X-1"}"#,
            status: 400,
            type: malformed
        ),
        .init(
            "PUT breaking rules",
            .put,
            "/v1/vehicles/{id}",
            body: #"{"tag": "no/slash", "make": "MAN", "model": "TGX", "year": 1885}"#,
            status: 422,
            type: validation,
            paths: ["tag", "year"]
        ),
        .init(
            "PUT as text/plain",
            .put,
            "/v1/vehicles/{id}",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018}"#,
            contentType: "text/plain",
            status: 415,
            type: unsupported
        ),
        .init(
            "PUT of a bad UUID",
            .put,
            "/v1/vehicles/nope",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018}"#,
            status: 400,
            type: badQuery,
            paths: ["path.id"]
        ),
        .init(
            "PUT of a missing vehicle",
            .put,
            "/v1/vehicles/{missing}",
            body: #"{"tag": "X-1", "make": "MAN", "model": "TGX", "year": 2018}"#,
            status: 404,
            type: ProblemType.notFound
        ),
        .init("delete of a bad UUID", .delete, "/v1/vehicles/nope", status: 400, type: badQuery, paths: ["path.id"]),
        .init(
            "delete of a missing vehicle",
            .delete,
            "/v1/vehicles/{missing}",
            status: 404,
            type: ProblemType.notFound
        ),
        .init("get of a bad UUID", .get, "/v1/vehicles/nope", status: 400, type: badQuery, paths: ["path.id"]),
        .init(
            "list with a parameter",
            .get,
            "/v1/vehicles?limit=5",
            status: 400,
            type: badQuery,
            paths: ["query.limit"]
        ),
    ]

    /// What the daemon shows of its store: both lists and one vehicle with its entity tag.
    static func snapshot(_ client: any TestClientProtocol, id: String) async throws -> [String] {
        let v2 = try await client.send(.get, "/v2/vehicles", token: nil)
        let v1 = try await client.send(.get, "/v1/vehicles", token: nil)
        let one = try await client.send(.get, "/v2/vehicles/\(id)", token: nil)
        return [v2.text, v1.text, one.text, one.headers[.eTag] ?? "no ETag"]
    }

    static func run(_ requests: [BadRequest]) async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let first = try await client.createV2(
                plate: "KEEP-1",
                maintenance: #"{"due": false, "lastServiced": "2024-05-06T07:08:09Z"}"#
            )
            _ = try await client.createV2(plate: "KEEP-2", make: "MAN", modelYear: 2015)
            let id = first.id.uuidString.lowercased()
            let before = try await snapshot(client, id: id)
            for request in requests {
                try await request.check(client, id: id)
            }
            let after = try await snapshot(client, id: id)
            #expect(after == before)
            let plates = try await client.listAllV2().vehicles.map(\.plate)
            #expect(plates == ["KEEP-1", "KEEP-2"])
            #expect(try await client.listAllV2().vehicles.map(\.revision) == [1, 1])
        }
    }

    @Test("v2: every bad request gets its problem, and the store is unchanged")
    func v2() async throws {
        try await Self.run(Self.v2Requests)
    }

    @Test("v1: every bad request gets its problem, and the store is unchanged")
    func v1() async throws {
        try await Self.run(Self.v1Requests)
    }

    @Test("a number that does not fit an integer member is reported at its path")
    func nonIntegerNumberPath() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            for number in ["2020.5", "99999999999999999999999"] {
                let response = try await client.send(
                    .post,
                    "/v2/vehicles",
                    json: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": \#(number)}"#
                )
                #expect(response.status == .badRequest)
                let paths = try response.problem().errors?.map(\.path)
                #expect(paths == ["modelYear"])
            }
            #expect(try await client.listAllV2().vehicles.isEmpty)
        }
    }

    @Test("a body over the limit is 413 on every write, and one under it is accepted")
    func oversizedBodies() async throws {
        let fixture = try ServerFixture(maximumBodyBytes: 256)
        try await fixture.withServer { client in
            let kept = try await client.createV2(plate: "SMALL-1")
            let id = kept.id.uuidString.lowercased()
            let padding = String(repeating: " ", count: 300)
            let oversized: [(HTTPRequest.Method, String, String)] = [
                (.post, "/v2/vehicles", #"{"plate": "BIG-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#),
                (.patch, "/v2/vehicles/\(id)", #"{"model": "FH16", "revision": 1}"#),
                (.post, "/v1/vehicles", #"{"tag": "BIG-2", "make": "MAN", "model": "TGX", "year": 2018}"#),
                (.put, "/v1/vehicles/\(id)", #"{"tag": "BIG-3", "make": "MAN", "model": "TGX", "year": 2018}"#),
            ]
            for (method, uri, json) in oversized {
                let response = try await client.send(method, uri, json: json + padding)
                #expect(response.status == .contentTooLarge, "\(method) \(uri): \(response.text)")
                #expect(response.headers[.contentType] == Problem.mediaType)
                #expect(try response.problem().type == ProblemType.tooLarge)
            }
            let model = String(repeating: "M", count: 64)
            let fits = #"{"plate": "FITS-1", "make": "Volvo", "model": "\#(model)", "modelYear": 2020}"#
            #expect(fits.utf8.count < 256)
            #expect(try await client.send(.post, "/v2/vehicles", json: fits).status == .created)
            let vehicles = try await client.listAllV2().vehicles
            #expect(vehicles.map(\.plate) == ["FITS-1", "SMALL-1"])
            #expect(vehicles.last == kept)
        }
    }
}
