import FleetCLI
import Foundation
import ModelKit
import Testing

/// `fleet env` persists environments in the configuration folder.
struct FleetEnvironmentTests {
    @Test func listShowsTheBuiltInLocalEnvironmentBeforeAnythingIsConfigured() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["env", "list"])
        #expect(outcome.code == 0)
        #expect(outcome.output == "* local  http://127.0.0.1:8080/\n")
        #expect(!FileManager.default.fileExists(atPath: harness.configFile.path))
    }

    @Test func addAndUseArePersistedAndReadBackByTheNextRun() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        #expect(await harness.run(["env", "add", "staging", "http://10.0.0.5:8080"]).code == 0)
        #expect(
            await harness.run(["env", "add", "prod", "https://fleet.example.com/api", "--token", "s3cret"]).code == 0
        )
        var listed = await harness.run(["env", "list"])
        #expect(listed.output.hasPrefix("* local"))
        #expect(listed.output.contains("  staging  http://10.0.0.5:8080/"))
        #expect(listed.output.contains("(token set)"))
        #expect(!listed.output.contains("s3cret"))

        let used = await harness.run(["env", "use", "staging"])
        #expect(used.code == 0)
        listed = await harness.run(["env", "list", "--json"])
        let environments = try JSONValue(parsing: listed.output)
        #expect(environments[1]?["name"]?.stringValue == "staging")
        #expect(environments[1]?["current"] == .bool(true))
        #expect(environments[0]?["current"] == .bool(false))

        let attributes = try FileManager.default.attributesOfItem(atPath: harness.configFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try JSONValue(parsing: Data(contentsOf: harness.configFile))
        #expect(stored["current"]?.stringValue == "staging")
    }

    @Test func addRefusesAURLThatIsNotHTTP() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["env", "add", "bad", "ftp://example.com"])
        #expect(outcome.code == 2)
        #expect(outcome.error.contains("http or https"))
    }

    @Test func theConfigFolderFollowsXDGWhenFleetConfigDirIsUnset() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        harness.environment["FLEET_CONFIG_DIR"] = nil
        harness.environment["XDG_CONFIG_HOME"] = harness.folder.appendingPathComponent("xdg").path
        #expect(await harness.run(["env", "add", "x", "http://127.0.0.1:1"]).code == 0)
        let file = harness.folder.appendingPathComponent("xdg/fleet/config.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}
