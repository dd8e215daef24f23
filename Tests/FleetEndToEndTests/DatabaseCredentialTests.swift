import FleetTestSupport
import Foundation
import ModelKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test PostgreSQL server's URL (with its password), if there is one.
private let postgresURL = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

/// A database password never leaves fleetd: not in its log, not in an error, not in `/health` or `/metrics`, on a
/// start that works and on starts that fail.
@Suite(
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason)),
    .enabled(
        if: postgresURL != nil,
        "STOREKITLITE_POSTGRES_URL is not set; Scripts/postgres run -- swift test starts a throwaway server"
    )
)
struct DatabaseCredentialTests {
    /// The test server's URL on a fresh schema, and its password.
    static func database() throws -> (url: String, password: String) {
        let url = try #require(postgresURL)
        let password = try #require(URLComponents(string: url)?.password)
        let schema = "cred_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return (url + (url.contains("?") ? "&" : "?") + "schema=" + schema, password)
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
