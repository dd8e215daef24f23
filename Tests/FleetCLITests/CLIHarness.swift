import FleetCLI
import FleetTestSupport
import Foundation

/// Runs `fleet` in-process with its own temporary home, configuration and data folders.
struct CLIHarness {
    /// What one run printed and returned.
    struct Outcome {
        var code: Int32
        var output: String
        var error: String
    }

    let folder: URL
    var environment: [String: String]

    init() throws {
        folder = try temporaryFolder()
        environment = [
            "HOME": folder.appendingPathComponent("home").path,
            "FLEET_CONFIG_DIR": folder.appendingPathComponent("config").path,
            "FLEET_DATA_DIR": folder.appendingPathComponent("data").path,
            "FLEETD_DATA_DIR": folder.appendingPathComponent("fleetd").path,
        ]
    }

    var configFile: URL { folder.appendingPathComponent("config/config.json") }

    func run(
        _ arguments: [String],
        terminal: Bool = false,
        errorTerminal: Bool = false,
        environment extra: [String: String] = [:],
        connectTimeout: Duration = .seconds(10)
    ) async -> Outcome {
        let buffer = OutputBuffer()
        let context = CommandContext(
            environment: environment.merging(extra) { $1 },
            output: buffer,
            outputIsTerminal: terminal,
            errorIsTerminal: errorTerminal,
            connectTimeout: connectTimeout
        )
        let code = await Fleet.run(arguments, context: context)
        return Outcome(code: code, output: buffer.standardOutput, error: buffer.standardError)
    }

    /// Adds an environment named `test` for `url` and makes it current.
    func use(_ url: URL) async throws {
        let outcome = await run(["env", "add", "test", url.absoluteString, "--use"])
        guard outcome.code == 0 else { throw HarnessError(message: outcome.error) }
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

struct HarnessError: Error {
    var message: String
}
