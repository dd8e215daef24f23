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

    @Test(arguments: [
        ("127.0.0.1:8080", "\"127.0.0.1:8080\" has no scheme: did you mean http://127.0.0.1:8080?"),
        ("localhost:8080", "\"localhost:8080\" has no scheme: did you mean http://localhost:8080?"),
        (
            "http://127.0.0.1:8080/v2",
            "\"http://127.0.0.1:8080/v2\" ends in the API version /v2, which fleet adds itself (--api v1 or v2): "
                + "give http://127.0.0.1:8080 instead."
        ),
        (
            "https://fleet.example.com/api/v1/",
            "\"https://fleet.example.com/api/v1/\" ends in the API version /v1, which fleet adds itself "
                + "(--api v1 or v2): give https://fleet.example.com/api instead."
        ),
    ])
    func addRefusesABaseURLWithoutASchemeOrWithTheVersionAndSaysWhatToGive(url: String, message: String) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["env", "add", "bad", url])
        #expect(outcome.code == 2)
        #expect(outcome.error == "error: \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: harness.configFile.path))
    }

    @Test func aVersionedURLWrittenIntoTheConfigurationByHandIsRefusedBeforeAnyRequest() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        try FileManager.default.createDirectory(
            at: harness.configFile.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        let json = #"{"current": "edited", "environments": [{"name": "edited", "url": "http://127.0.0.1:9/v2/"}]}"#
        try Data(json.utf8).write(to: harness.configFile)
        let outcome = await harness.run(["vehicles", "list"])
        #expect(outcome.code == 2)
        #expect(outcome.error.contains("the environment \"edited\" in \(harness.configFile.path)"))
        #expect(outcome.error.contains("give http://127.0.0.1:9 instead. Change it with 'fleet env add edited URL'."))
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

    @Test func removeDeletesAnEnvironmentWithItsTokenAndOfflineCopy() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        #expect(await harness.run(["env", "add", "staging", "http://10.0.0.5:8080", "--token", "s3cret"]).code == 0)
        #expect(await harness.run(["env", "add", "prod", "https://fleet.example.com"]).code == 0)
        let data = harness.folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let copy = data.appendingPathComponent("offline-staging.sqlite")
        try Data("copy".utf8).write(to: copy)
        try Data("wal".utf8).write(to: URL(fileURLWithPath: copy.path + "-wal"))

        let removed = await harness.run(["env", "remove", "staging"])
        #expect(removed.code == 0, "\(removed.error)")
        #expect(removed.output == "removed \"staging\" (http://10.0.0.5:8080/) and its offline copy \(copy.path)\n")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
        let listed = await harness.run(["env", "list"])
        #expect(listed.output == "* local  http://127.0.0.1:8080/\n  prod   https://fleet.example.com/\n")
        #expect(!(try String(contentsOf: harness.configFile, encoding: .utf8)).contains("s3cret"))

        let json = await harness.run(["env", "remove", "prod", "--json"])
        #expect(json.code == 0, "\(json.error)")
        let object = try JSONValue(parsing: json.output)
        #expect(object["removed"]?.stringValue == "prod")
        #expect(object["offlineCopy"] == .null)
    }

    @Test func removeRefusesTheBuiltInAndTheCurrentEnvironmentWithSix() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let local = await harness.run(["env", "remove", "local"])
        #expect(local.code == 6)
        #expect(local.error == "error: \"local\" is built in and cannot be removed\n")

        #expect(await harness.run(["env", "add", "staging", "http://10.0.0.5:8080", "--use"]).code == 0)
        let current = await harness.run(["env", "remove", "staging"])
        #expect(current.code == 6)
        #expect(current.error.contains("\"staging\" is the current environment"))
        #expect(current.error.contains("'fleet env use local', then 'fleet env remove staging'"))
        #expect(await harness.run(["env", "list"]).output.contains("* staging"))

        let json = await harness.run(["env", "remove", "staging", "--json"])
        #expect(json.code == 6)
        #expect(try JSONValue(parsing: json.error)["exitCode"] == .integer(6))

        let unknown = await harness.run(["env", "remove", "nowhere"])
        #expect(unknown.code == 5)
        #expect(unknown.error.contains("no environment is named \"nowhere\" (known: local, staging)"))
    }
}
