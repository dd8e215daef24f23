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
            let connection = try RawConnection(port: port)
            try connection.send(request)
            connection.finishSending()
            let answer = connection.receiveResponse()
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
}
