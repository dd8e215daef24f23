import FleetTestSupport
import Foundation
import ModelKit
import ModelKitTesting
import ProcessTesting
import Testing

/// What a person typing `fleet` commands sees, from the built binary with private configuration and data folders:
/// suggestions, hints and exit codes as the help states them.
@Suite(
    "fleet, the built binary",
    .enabled(
        if: DaemonProcess.builtExecutable(named: "fleet").0 != nil,
        Comment(rawValue: DaemonProcess.builtExecutable(named: "fleet").1)
    )
)
struct FleetBinaryTests {
    struct Outcome {
        var code: Int32
        var output: String
        var error: String
    }

    /// Runs the built `fleet` with `arguments` in a fresh home.
    static func fleet(_ arguments: [String]) async throws -> Outcome {
        let binary = try #require(DaemonProcess.builtExecutable(named: "fleet").0)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-bin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await ChildProcess(
            binary.path,
            arguments: arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": home.path, "NO_COLOR": "1",
                "FLEET_CONFIG_DIR": home.appendingPathComponent("config").path,
                "FLEET_DATA_DIR": home.appendingPathComponent("data").path,
                "FLEETD_DATA_DIR": home.appendingPathComponent("no-daemon").path,
            ],
            output: .collect,
            error: .collect
        )
        .finished()
        guard case .exited(let code) = result.termination else {
            Issue.record("fleet ended by \(result.termination)")
            return Outcome(code: -1, output: result.outputText, error: result.errorText)
        }
        return Outcome(code: code, output: result.outputText, error: result.errorText)
    }

    @Test("an unknown command is named with the real one: delete suggests remove, lst suggests list")
    func unknownCommandsGetASuggestion() async throws {
        let delete = try await Self.fleet(["vehicles", "delete", "x"])
        #expect(delete.code == 2)
        #expect(delete.error.contains("Did you mean 'remove'?"), "\(delete.error)")
        let typo = try await Self.fleet(["vehicles", "lst"])
        #expect(typo.error.contains("Did you mean 'list'?"), "\(typo.error)")
    }

    @Test("under --json a usage error is one JSON object with the exit code")
    func usageErrorsAreJSONUnderJSON() async throws {
        let outcome = try await Self.fleet(["--json", "vehicles", "lst"])
        #expect(outcome.code == 2)
        let error = try JSONValue(parsing: Array(outcome.error.utf8))
        #expect(error["error"] == "usage")
        #expect(error["exitCode"] == 2)
    }

    @Test("a base URL without a scheme gets the URL to give instead; the built-in environment cannot be removed")
    func environmentHints() async throws {
        let noScheme = try await Self.fleet(["env", "add", "bad", "127.0.0.1:8080"])
        #expect(noScheme.code == 2)
        #expect(noScheme.error.contains("did you mean http://127.0.0.1:8080?"), "\(noScheme.error)")
        let local = try await Self.fleet(["env", "remove", "local"])
        #expect(local.code != 0)
        #expect(local.error.lowercased().contains("local"), "\(local.error)")
    }

    @Test("--offline with nothing synced and nothing cached exits with 5, as the help says")
    func nothingOffline() async throws {
        let outcome = try await Self.fleet(["vehicles", "list", "--offline"])
        #expect(outcome.code == 5, "\(outcome.error)")
        let help = try await Self.fleet(["--help"])
        #expect(help.output.contains("5"), "the help names exit code 5")
    }

    /// Runs the built `fleet` in a pseudo-terminal (util-linux's `script`), as a person at a terminal runs it: what
    /// they see, colours included.
    static func fleetInATerminal(_ arguments: [String]) async throws -> String {
        let binary = try #require(DaemonProcess.builtExecutable(named: "fleet").0)
        let script = try #require(
            ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "util-linux's script is not installed"
        )
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-tty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let command = ([binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try await ChildProcess(
            script,
            arguments: ["-qec", command, "/dev/null"],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": home.path, "TERM": "xterm",
                "FLEET_CONFIG_DIR": home.appendingPathComponent("config").path,
                "FLEET_DATA_DIR": home.appendingPathComponent("data").path,
            ],
            output: .collect,
            error: .collect
        )
        .finished()
        return result.outputText
    }

    @Test("at a terminal, fleet's own errors start with a red error: and the hint is on the same line")
    func whatATerminalShows() async throws {
        let screen = try await Self.fleetInATerminal(["env", "add", "bad", "127.0.0.1:8080"])
        #expect(screen.hasPrefix("\u{1B}[31merror:\u{1B}[0m "), "\(screen.debugDescription)")
        #expect(screen.contains("did you mean http://127.0.0.1:8080?"))
        let typo = try await Self.fleetInATerminal(["vehicles", "delete", "x"])
        #expect(typo.contains("Did you mean 'remove'?"), "\(typo.debugDescription)")
    }
}
