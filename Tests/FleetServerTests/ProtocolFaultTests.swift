import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import ModelKit
import Testing

/// What a client that breaks off or misbehaves gets: never a 5xx, never an error in the daemon's log.
struct ProtocolFaultTests {
    private static let head = """
        Host: 127.0.0.1\r
        Authorization: Bearer \(ServerFixture.token)\r
        Content-Type: application/json\r

        """

    /// Requests whose bodies end early: a declared length not reached, and a chunked body without its last chunk.
    static let truncated: [(name: String, request: String)] = [
        ("v2 POST", "POST /v2/vehicles HTTP/1.1\r\n\(head)Content-Length: 200\r\n\r\n{\"plate\": \"TR-1\", \"ma"),
        (
            "v1 PUT",
            "PUT /v1/vehicles/0193f1c2-0000-7000-8000-000000000000 HTTP/1.1\r\n\(head)Content-Length: 90\r\n\r\n{\"tag\":"
        ),
        (
            "chunked",
            "POST /v2/vehicles HTTP/1.1\r\n\(head)Transfer-Encoding: chunked\r\n\r\n10\r\n{\"plate\": \"TR-2\"\r\n"
        ),
    ]

    @Test(arguments: truncated.map(\.name))
    func aBodyThatEndsEarlyIsAClientErrorNotAFailureOfTheDaemon(name: String) async throws {
        let request = try #require(Self.truncated.first { $0.name == name }).request
        let logs = InMemoryLogHandler()
        let fixture = try ServerFixture(logs: logs)
        try await fixture.withServer { client in
            let port = try #require(client.port)
            // Blocking reads run off the cooperative pool, which the daemon in this process needs to answer.
            let answer = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                connection.finishSending()
                return connection.receiveResponse()
            }
            // The daemon may answer 400 or just close: never 5xx.
            #expect(!answer.hasPrefix("HTTP/1.1 5"), "\(answer)")
            if !answer.isEmpty { #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)") }
            let metrics = try await client.send(.get, "/metrics", token: nil)
            #expect(!metrics.text.contains(#"status="500""#))
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            #expect(try list.jsonValue()["items"] == [])
        }
        let errors = logs.entries.filter { $0.level >= .error }
        #expect(errors.isEmpty, "\(errors.map(\.message))")
    }

    /// Requests the HTTP parser refuses, and the status each gets.
    static let malformed: [(name: String, request: String, status: Int)] = [
        (
            "oversized header",
            "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n", 431
        ),
        (
            "too many headers",
            "GET /health HTTP/1.1\r\nHost: x\r\n"
                + (0..<1_200).map { "X-\($0): v\r\n" }.joined() + "\r\n",
            431
        ),
        (
            "Content-Length and Transfer-Encoding",
            "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            400
        ),
        ("an unknown method", "BREW /v2/vehicles HTTP/1.1\r\nHost: x\r\n\r\n", 501),
        // The parser sees a TLS handshake as a method it does not know.
        ("TLS on the plain port", "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}", 501),
    ]

    @Test(arguments: malformed.map(\.name))
    func aRequestTheParserRefusesGetsItsStatusAndAProblemBody(name: String) async throws {
        let (request, status) = try #require(Self.malformed.first { $0.name == name }.map { ($0.request, $0.status) })
        let logs = InMemoryLogHandler()
        let fixture = try ServerFixture(logs: logs)
        try await fixture.withServer { client in
            let port = try #require(client.port)
            // Blocking reads run off the cooperative pool, which the daemon in this process needs to answer.
            let (answer, closed) = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                return (connection.receiveResponse(), connection.isClosedByPeer())
            }
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(answer.prefix(200))")
            #expect(answer.contains("application/problem+json"))
            #expect(answer.contains("\"status\":\(status)"))
            #expect(closed)
            // The daemon goes on serving.
            let health = try await client.send(.get, "/health", token: nil)
            #expect(health.status == .ok)
        }
        #expect(logs.entries.filter { $0.level >= .error }.isEmpty)
    }

    @Test("an HTTP/1.0 request without keep-alive gets its answer and then the connection closes")
    func http10WithoutKeepAliveCloses() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            for request in ["GET /health HTTP/1.0\r\n\r\n", "GET /v2/vehicles HTTP/1.0\r\nConnection: close\r\n\r\n"] {
                let (answer, closed) = try await RawConnection.offPool {
                    let connection = try RawConnection(port: port)
                    try connection.send(request)
                    return (connection.receiveResponse(), connection.isClosedByPeer())
                }
                #expect(answer.hasPrefix("HTTP/1.1 200 "), "\(answer.prefix(200))")
                #expect(answer.lowercased().contains("\r\nconnection: close\r\n"), "\(answer.prefix(300))")
                #expect(!answer.lowercased().contains("transfer-encoding"))
                #expect(closed, "\(request)")
            }
        }
    }

    @Test("an HTTP/1.0 request with keep-alive keeps its connection, and its answer says so")
    func http10WithKeepAliveStaysOpen() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let (answers, closed) = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                var answers: [String] = []
                for _ in 0..<2 {
                    try connection.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                    answers.append(connection.receiveResponse())
                }
                // HTTP/1.1 keeps the connection without being asked, and closes it when asked.
                try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                answers.append(connection.receiveResponse())
                try connection.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answers.append(connection.receiveResponse())
                return (answers, connection.isClosedByPeer())
            }
            #expect(answers.count == 4)
            for (index, answer) in answers.enumerated() {
                #expect(answer.hasPrefix("HTTP/1.1 200 "), "answer \(index): \(answer.prefix(200))")
                if index < 2 {
                    #expect(answer.lowercased().contains("\r\nconnection: keep-alive\r\n"), "\(answer.prefix(300))")
                }
            }
            #expect(closed)
        }
    }
}
