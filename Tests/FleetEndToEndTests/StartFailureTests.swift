import FleetTestSupport
import Foundation
import ModelKitTesting
import ProcessTesting
import Testing

/// What a person who starts fleetd wrongly sees, from the built binary: one line that says what to do, the exit code
/// the usage text documents (2 for a setting, 1 for the machine or the database), and nothing created that could
/// have been checked first.
@Suite(
    "fleetd start failures",
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason))
)
struct StartFailureTests {
    struct Outcome {
        var status: ChildProcess.Termination
        /// Standard error's lines.
        var lines: [String]
    }

    /// Runs fleetd with `arguments` (and a token, a free port unless given, text logs) until it exits.
    static func start(_ arguments: [String], dataDirectory: String) async throws -> Outcome {
        let binary = try #require(DaemonProcess.located.binary)
        let defaults = ["--data-dir", dataDirectory, "--token", DaemonProcess.token, "--log-format", "text"]
        let port = arguments.contains("--port") ? [] : ["--port", "0"]
        let result = try await ChildProcess(
            binary.path,
            arguments: defaults + port + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": dataDirectory],
            output: .collect,
            error: .collect
        )
        .finished()
        return Outcome(
            status: result.termination,
            lines: result.errorText.split(separator: "\n").map(String.init)
        )
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-start-\(UUID().uuidString)").path
    }

    @Test("a database URL of another kind is a setting error: exit 2, one line, nothing created")
    func anotherKindOfDatabase() async throws {
        let folder = Self.temporaryPath()
        let outcome = try await Self.start(
            ["--database", "mysql://fleet:secret@127.0.0.1/fleet"],
            dataDirectory: folder
        )
        #expect(outcome.status == .exited(2))
        #expect(outcome.lines.count == 1, "\(outcome.lines)")
        #expect(outcome.lines.first?.contains("postgres://") == true)
        #expect(!outcome.lines.joined().contains("secret"))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("a host not of this machine is named with --host, even with --port 0, before anything is made")
    func anAddressOfAnotherMachine() async throws {
        let folder = Self.temporaryPath()
        // TEST-NET-1 (RFC 5737): never an address of this machine. Binding to it sends nothing anywhere.
        let outcome = try await Self.start(["--host", "192.0.2.1", "--port", "0"], dataDirectory: folder)
        #expect(outcome.status == .exited(1))
        #expect(outcome.lines.count == 1, "\(outcome.lines)")
        #expect(outcome.lines.first?.contains("--host") == true)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("a second fleetd on the same data directory says so and points to --data-dir")
    func aSecondDaemonOnTheSameData() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let first = try await DaemonProcess(binary: binary)
        defer { first.removeData() }
        let outcome = try await Self.start([], dataDirectory: first.dataDirectory.path)
        #expect(outcome.status == .exited(1))
        #expect(outcome.lines.count == 1, "\(outcome.lines)")
        #expect(outcome.lines.first?.contains("another fleetd") == true)
        #expect(outcome.lines.first?.contains("--data-dir") == true)
        #expect(await first.stop() == 0)
    }

    @Test("a PostgreSQL server that is not there is one line naming the database and what to check")
    func aDatabaseThatIsNotThere() async throws {
        let folder = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try await closedPort()
        let outcome = try await Self.start(
            ["--database", "postgres://fleet:secret@127.0.0.1:\(port)/fleet?schema=fleet"],
            dataDirectory: folder
        )
        #expect(outcome.status == .exited(1))
        let failures = outcome.lines.filter { $0.hasPrefix("fleetd: ") }
        #expect(failures.count == 1, "\(outcome.lines)")
        let failure = try #require(failures.first)
        #expect(failure.contains("postgresql://fleet@127.0.0.1:\(port)/fleet schema fleet"), "\(failure)")
        #expect(failure.contains("--database"))
        #expect(!failure.contains("SingleConnectionFailure"))
        #expect(!outcome.lines.joined().contains("secret"))
    }
}
