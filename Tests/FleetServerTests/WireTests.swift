import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import InMemoryLogging
import Logging
import ModelKit
import Testing

/// What clients see on the wire, byte for byte: HEAD, pipelined requests, bodies that never arrive whole,
/// `Expect: 100-continue`, the `Host` field and the answers to requests the parser refuses.
struct WireTests {
    private static let authorization = "Authorization: Bearer \(ServerFixture.token)\r\n"

    /// A v2 create of `plate` whose body is complete JSON.
    private static func createBody(_ plate: String) -> String {
        #"{"plate": "\#(plate)", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
    }

    /// The status codes of the answers in `text`, in order.
    private static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }

    /// Sends `bytes` on a new connection, then reads until the daemon closes it.
    private static func exchange(_ port: Int, _ bytes: String, halfClose: Bool = false) async throws -> String {
        try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send(bytes)
            if halfClose { connection.finishSending() }
            return connection.receiveUntilClosed()
        }
    }

    // MARK: - HEAD

    @Test(
        "HEAD is served wherever GET is, with the GET's header fields and no body",
        arguments: ["/health", "/metrics", "/openapi/v1.json", "/openapi/v2.json", "/v1/vehicles", "/v2/vehicles"]
    )
    func headIsServedWhereGetIs(path: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            _ = try await client.createV2(plate: "HD-1")
            let text = try await Self.exchange(
                port,
                "HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\nGET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { "HTTP/1.1 " + $0 }
            try #require(answers.count == 2, "\(text.prefix(600))")
            let (head, get) = (answers[0], answers[1])
            #expect(head.hasPrefix("HTTP/1.1 200 "), "\(head)")
            #expect(head.hasSuffix("\r\n\r\n"), "a HEAD answer has no body: \(head)")
            func fields(_ answer: String) -> [String: String] {
                let lines = answer.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n").dropFirst()
                var fields: [String: String] = [:]
                for line in lines {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                }
                return fields
            }
            let headFields = fields(head)
            let getFields = fields(get)
            // The metrics text changes between the two requests (the HEAD is counted), so its length may too.
            let compared = path == "/metrics" ? ["content-type"] : ["content-type", "content-length", "etag"]
            for name in compared {
                #expect(headFields[name] == getFields[name], "\(name)")
            }
            #expect(headFields["content-length"] != nil)
        }
    }

    @Test("HEAD of a vehicle answers its entity tag, and 404 for one that does not exist")
    func headOfAVehicle() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let vehicle = try await client.createV2(plate: "HD-2")
            let id = vehicle.id.uuidString.lowercased()
            let text = try await Self.exchange(
                port,
                "HEAD /v2/vehicles/\(id) HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "HEAD /v2/vehicles/0193f1c2-0000-7000-8000-000000000000 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "HEAD /v1/vehicles/\(id) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(Self.statuses(text) == [200, 404, 200], "\(text)")
            #expect(text.contains("ETag: \"1\"") || text.lowercased().contains("etag: \"1\""), "\(text)")
            #expect(!text.contains("{"), "no answer to HEAD has a body: \(text)")
        }
    }

    // MARK: - Pipelining

    @Test("pipelined requests each get their own answer, in order, when a later one is refused")
    func pipelinedRequestsKeepTheirAnswersBeforeARefusal() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let body = Self.createBody("PL-1")
            let text = try await Self.exchange(
                port,
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\n\(Self.authorization)"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    + "BREW /coffee HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(Self.statuses(text) == [200, 201, 501], "\(text)")
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            #expect(list.text.contains("PL-1"))
        }
    }

    @Test("a request after garbage on the same connection is not served, and the garbage gets its 400 in turn")
    func garbageAfterValidRequests() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let text = try await Self.exchange(
                port,
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(Self.statuses(text) == [200, 200, 400], "\(text)")
            #expect(text.contains("application/problem+json"))
        }
    }

    @Test("a request with Connection: close gets its own answer, and what follows it is ignored")
    func connectionCloseThenMore() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let text = try await Self.exchange(
                port,
                "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(Self.statuses(text) == [200], "\(text)")
        }
    }

    // MARK: - Bodies that do not arrive whole

    /// Requests whose bytes so far hold a complete JSON object, cut off in the ways clients and networks cut them.
    static let cutOff: [(name: String, request: String)] = {
        let body = createBody("CUT-1")
        let head = "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\n\(authorization)Content-Type: application/json\r\n"
        let chunk = String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n"
        return [
            ("Content-Length 1 short", head + "Content-Length: \(body.utf8.count + 1)\r\n\r\n" + body),
            ("Content-Length 10 short", head + "Content-Length: \(body.utf8.count + 10)\r\n\r\n" + body),
            ("Content-Length 1000 short", head + "Content-Length: \(body.utf8.count + 1000)\r\n\r\n" + body),
            ("chunked without its last chunk", head + "Transfer-Encoding: chunked\r\n\r\n" + chunk),
            ("chunked with a broken chunk", head + "Transfer-Encoding: chunked\r\n\r\n" + chunk + "zz\r\n{}\r\n"),
            ("chunked cut inside a chunk", head + "Transfer-Encoding: chunked\r\n\r\n" + "ff\r\n" + body),
        ]
    }()

    @Test(
        "a body that does not arrive whole writes nothing, whatever the bytes so far parse as",
        arguments: [
            false, true,
        ]
    )
    func aCutOffBodyWritesNothing(halfClose: Bool) async throws {
        let logs = InMemoryLogHandler()
        let fixture = try ServerFixture(logs: logs)
        try await fixture.withServer { client in
            let port = try #require(client.port)
            for (name, request) in Self.cutOff {
                let answer = try await RawConnection.offPool {
                    let connection = try RawConnection(port: port)
                    try connection.send(request)
                    if halfClose {
                        connection.finishSending()
                        return connection.receiveUntilClosed()
                    }
                    connection.hangUp()
                    return ""
                }
                if !answer.isEmpty {
                    #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(name): \(answer.prefix(300))")
                }
                let list = try await client.send(.get, "/v2/vehicles", token: nil)
                #expect(try list.jsonValue()["items"] == [], "\(name): \(list.text)")
            }
            // The client's retry of the whole request is not a conflict with a half-written first try.
            let retry = try await client.send(.post, "/v2/vehicles", json: Self.createBody("CUT-1"))
            #expect(retry.status == .created, "\(retry.text)")
        }
        #expect(logs.entries.filter { $0.level >= .error }.isEmpty, "\(logs.entries.map(\.message))")
    }

    @Test("a client that disconnects at any point of a create leaves nothing behind")
    func disconnectsAtEveryPoint() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let body = Self.createBody("CUT-2")
            let request = Array(
                ("POST /v2/vehicles HTTP/1.1\r\nHost: x\r\n\(Self.authorization)Content-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8
            )
            // Every cut inside the body and the blank line before it, and every eighth one in the head.
            let cuts = (1..<request.count).filter { $0 % 8 == 0 || $0 >= request.count - body.utf8.count - 4 }
            try await RawConnection.offPool {
                for cut in cuts {
                    let connection = try RawConnection(port: port)
                    try connection.send(String(decoding: request[..<cut], as: UTF8.self))
                    connection.hangUp()
                }
            }
            // Every connection has been handled once a new one is answered after them.
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            #expect(try list.jsonValue()["items"] == [], "\(list.text)")
            let whole = try await Self.exchange(port, String(decoding: request, as: UTF8.self), halfClose: true)
            #expect(Self.statuses(whole) == [201], "\(whole.prefix(300))")
        }
    }

    @Test("a body still open when the body timeout ends is 408, writes nothing, and the connection closes")
    func aLateBodyIsARequestTimeout() async throws {
        let fixture = try ServerFixture { $0.bodyTimeoutSeconds = 1 }
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let body = Self.createBody("LATE-1")
            // The whole object, but five bytes short of the length announced: the client waits for an answer.
            let answer = try await Self.exchange(
                port,
                "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\n\(Self.authorization)Content-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count + 5)\r\n\r\n\(body)"
            )
            #expect(Self.statuses(answer) == [408], "\(answer.prefix(300))")
            #expect(answer.contains("request-timeout"))
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            #expect(try list.jsonValue()["items"] == [], "\(list.text)")
        }
    }

    // MARK: - Expect, Host, refusals

    @Test("Expect: 100-continue gets 100 Continue before the body is sent")
    func expectContinue() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let body = Self.createBody("EX-1")
            let (interim, final) = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\n\(Self.authorization)Content-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
                )
                let interim = connection.receiveResponse()
                try connection.send(body)
                connection.finishSending()
                return (interim, connection.receiveUntilClosed())
            }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
            #expect(Self.statuses(final) == [201], "\(final.prefix(300))")
        }
    }

    @Test(
        "a request without exactly one valid Host gets 400",
        arguments: [
            "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: a b\r\n\r\n",
            "GET /health HTTP/1.1\r\n\r\n",
        ]
    )
    func badHost(request: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let text = try await Self.exchange(port, request)
            #expect(Self.statuses(text) == [400], "\(text)")
            #expect(text.contains("Bad Host"))
            // HTTP/1.0 may leave Host out.
            let legacy = try await Self.exchange(port, "GET /health HTTP/1.0\r\n\r\n")
            #expect(Self.statuses(legacy) == [200], "\(legacy)")
        }
    }

    @Test("a refusal below the routes carries a Date, as every other answer does")
    func refusalsCarryADate() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let text = try await Self.exchange(port, "BREW / HTTP/1.1\r\nHost: x\r\n\r\n")
            let date = try #require(
                text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("date: ") }?.dropFirst(6)
            )
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let parsed = try #require(formatter.date(from: String(date)), "\(date)")
            #expect(abs(parsed.timeIntervalSinceNow) < 60)
        }
    }

    // MARK: - Entity tags as OpenAPI runtimes send them

    @Test("percent-encoded entity tags are read as the tags they encode; malformed ones are still refused")
    func percentEncodedEntityTags() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let vehicle = try await client.createV2(plate: "ET-1")
            let uri = "/v2/vehicles/\(vehicle.id.uuidString)"
            let notModified = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: "%221%22"])
            #expect(notModified.status == .notModified)
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            let tag = try #require(list.headers[.eTag])
            let encoded = tag.replacingOccurrences(of: "\"", with: "%22")
            let listAgain = try await client.send(.get, "/v2/vehicles", token: nil, headers: [.ifNoneMatch: encoded])
            #expect(listAgain.status == .notModified)
            let patched = try await client.send(
                .patch,
                uri,
                json: #"{"model": "FH16"}"#,
                headers: [.ifMatch: "%221%22"]
            )
            #expect(patched.status == .ok, "\(patched.text)")
            let stale = try await client.send(.patch, uri, json: #"{"model": "FH"}"#, headers: [.ifMatch: "%221%22"])
            #expect(stale.status == .preconditionFailed)
            for malformed in ["%22x%22", "%2", "1", "%221"] {
                let refused = try await client.send(
                    .patch,
                    uri,
                    json: #"{"model": "X"}"#,
                    headers: [.ifMatch: malformed]
                )
                #expect(refused.status == .badRequest, "\(malformed): \(refused.status)")
            }
        }
    }
}
