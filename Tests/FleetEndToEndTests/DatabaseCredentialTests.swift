import FleetTestSupport
import Foundation
import ModelKitTesting
import ProcessTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A database password never leaves fleetd: not in its log, not in an error, not in `/health` or `/metrics`, on a
/// start that works and on starts that fail.
@Suite(
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason)),
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason))
)
struct DatabaseCredentialTests {
    /// The test server's URL on a fresh schema, and its password.
    static func database() throws -> (url: String, password: String) {
        let server = try #require(TestPostgres.url)
        let password = try #require(URLComponents(string: server)?.password)
        let database = try #require(TestPostgres.freshSchema("cred"))
        return (database.url, password)
    }

    @Test("a start, a write, /health and /metrics, and a stop: the password appears nowhere")
    func aRunNeverShowsThePassword() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let (url, password) = try Self.database()
        let daemon = try await DaemonProcess(binary: binary, extraArguments: ["--database", url])
        defer { daemon.removeData() }
        var bodies: [String] = []
        for path in ["/health", "/metrics", "/v2/vehicles"] {
            let (data, _) = try await URLSession.shared.data(from: daemon.baseURL.appendingPathComponent(path))
            bodies.append(String(decoding: data, as: UTF8.self))
        }
        let status = await daemon.stop()
        #expect(status == 0)
        let log = daemon.logText
        #expect(log.contains("\"message\":\"starting\""), "\(log.prefix(400))")
        #expect(log.contains("schema cred_"), "the start line names the schema: \(log.prefix(400))")
        #expect(!log.contains(password), "the log holds the password")
        for body in bodies {
            #expect(!body.contains(password))
        }
    }

    @Test(
        "a start that fails names no password",
        arguments: ["a wrong password", "a server that is not there"]
    )
    func aFailedStartNeverShowsThePassword(failure: String) async throws {
        var (url, _) = try Self.database()
        let secret = "not-the-password-" + UUID().uuidString.prefix(8)
        var components = try #require(URLComponents(string: url))
        components.password = secret
        if failure == "a server that is not there" {
            components.port = try await closedPort()
        }
        url = try #require(components.string)
        let folder = StartFailureTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outcome = try await StartFailureTests.start(["--database", url], dataDirectory: folder)
        #expect(!outcome.status.succeeded, "\(outcome.lines)")
        #expect(!outcome.lines.joined().contains(secret), "\(outcome.lines)")
    }
}
