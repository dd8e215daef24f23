import FleetCLI
import FleetTestSupport
import Foundation
import ModelKit
import RequestKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A configuration file or a folder fleet cannot use is named with what is wrong and what to do, in one line.
struct FleetFileProblemTests {
    @Test func aConfigurationFolderThatIsAFileIsNamed() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let file = harness.folder.appendingPathComponent("config-file")
        try Data("not a folder".utf8).write(to: file)
        harness.environment["FLEET_CONFIG_DIR"] = file.path
        let outcome = await harness.run(["env", "add", "staging", "http://10.0.0.5:8080"])
        #expect(outcome.code == 1)
        #expect(
            outcome.error
                == "error: fleet's configuration folder \(file.path) is a file, not a folder: move the file away, "
                + "or set FLEET_CONFIG_DIR to a folder you can write\n"
        )

        harness.environment["FLEET_CONFIG_DIR"] = file.appendingPathComponent("fleet").path
        let below = await harness.run(["env", "add", "staging", "http://10.0.0.5:8080"])
        #expect(below.code == 1)
        #expect(below.error.contains("cannot be created: \(file.path) is a file, not a folder"), "\(below.error)")
        #expect(!below.error.contains("NSCocoaErrorDomain"))
    }

    @Test func aConfigurationThatIsNotJSONIsNamedWithLineAndColumn() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        try FileManager.default.createDirectory(
            at: harness.configFile.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(
            "{\n  \"current\": \"local\",\n  \"environments\": [\n    {\"name\": \"a\" \"url\": \"x\"}\n  ]\n}\n".utf8
        )
        .write(to: harness.configFile)
        let outcome = await harness.run(["env", "list"])
        #expect(outcome.code == 1)
        #expect(
            outcome.error
                == "error: the configuration \(harness.configFile.path) is not valid JSON at line 4, column 18: "
                + "expected ',' or '}', found '\"'; fix the file, or move it away to start again with only the "
                + "environment 'local'\n"
        )
        let json = await harness.run(["vehicles", "list", "--json"])
        #expect(json.code == 1)
        #expect(try JSONValue(parsing: json.error)["message"]?.stringValue?.contains("line 4, column 18") == true)
    }

    @Test func aConfigurationOfAnotherShapeIsNamedWithThePathThatDoesNotFit() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        try FileManager.default.createDirectory(
            at: harness.configFile.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(#"{"current": "local", "environments": [{"name": "a"}]}"#.utf8).write(to: harness.configFile)
        let outcome = await harness.run(["env", "list"])
        #expect(outcome.code == 1)
        #expect(
            outcome.error
                == "error: the configuration \(harness.configFile.path) does not fit: environments[0].url: missing "
                + "required key; fix the file, or move it away to start again with only the environment 'local'\n"
        )
    }

    @Test func aDataFolderThatIsAFileIsNamedAndOnlineReadsGoOnWithoutACache() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let file = harness.folder.appendingPathComponent("data-file")
        try Data("not a folder".utf8).write(to: file)
        harness.environment["FLEET_DATA_DIR"] = file.path
        let advice =
            "fleet's data folder \(file.path) is a file, not a folder: move the file away, or set FLEET_DATA_DIR to "
            + "a folder you can write"
        let fleetd = FakeFleetd()
        fleetd.seed(sampleVehicles(2))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let synced = await harness.run(["sync"])
            #expect(synced.code == 1)
            #expect(synced.error.hasSuffix("error: \(advice)\n"), "\(synced.error)")

            let listed = await harness.run(["vehicles", "list"])
            #expect(listed.code == 0, "\(listed.error)")
            #expect(listed.output.split(separator: "\n").count == 2)
            #expect(
                listed.error
                    == "warning: fleet's HTTP cache \(file.path)/http-cache.sqlite cannot be used: \(advice). Going on "
                    + "without a cache.\n"
            )
            #expect(!listed.error.contains("Remove the file"))
        }
        let offline = await harness.run(["vehicles", "list", "--offline"])
        #expect(offline.code == 1)
        #expect(offline.error.hasSuffix("error: \(advice)\n"), "\(offline.error)")
    }
}

/// Folders and files that are read-only to the user. Root writes anywhere, so these run only for other users
/// (`Scripts/test-all` runs them again as `nobody` when it runs as root).
@Suite(.enabled(if: geteuid() != 0, "root ignores file permissions, so a folder cannot be read-only to it"))
struct FleetReadOnlyFolderTests {
    @Test func aReadOnlyConfigurationFolderIsNamedWithWhatToDo() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let folder = harness.folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o555)
        defer { chmod(folder.path, 0o755) }
        harness.environment["FLEET_CONFIG_DIR"] = folder.path
        let outcome = await harness.run(["env", "add", "staging", "http://10.0.0.5:8080"])
        #expect(outcome.code == 1)
        #expect(
            outcome.error
                == "error: fleet's configuration folder \(folder.path) is read-only to you: make it writable "
                + "(chmod u+w \(folder.path)), or set FLEET_CONFIG_DIR to a folder you can write\n"
        )

        harness.environment["FLEET_CONFIG_DIR"] = folder.appendingPathComponent("fleet").path
        let below = await harness.run(["env", "use", "local"])
        #expect(below.code == 1)
        #expect(below.error.contains("cannot be created: \(folder.path) is read-only to you"), "\(below.error)")
        #expect(!below.error.contains("NSCocoaErrorDomain"))
    }

    @Test func aReadOnlyDataFolderIsNamedWithWhatToDo() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let folder = harness.folder.appendingPathComponent("locked-data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o555)
        defer { chmod(folder.path, 0o755) }
        harness.environment["FLEET_DATA_DIR"] = folder.path
        let outcome = await harness.run(["vehicles", "list", "--offline"])
        #expect(outcome.code == 1)
        #expect(
            outcome.error
                == "error: fleet's data folder \(folder.path) is read-only to you: make it writable (chmod u+w "
                + "\(folder.path)), or set FLEET_DATA_DIR to a folder you can write\n"
        )
    }

    @Test func aReadOnlyCacheFileIsNamedWithWhatToDo() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let data = harness.folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let cache = data.appendingPathComponent("http-cache.sqlite")
        try Data().write(to: cache)
        chmod(cache.path, 0o444)
        let outcome = await harness.run(["vehicles", "get", "0190a1b2-0000-7000-8000-000000000000", "--offline"])
        #expect(outcome.code == 5)
        #expect(
            outcome.error.contains(
                "warning: fleet's HTTP cache \(cache.path) cannot be used: the file is read-only to you; make it "
                    + "writable (chmod u+w \(cache.path)), or remove it. Going on without a cache."
            ),
            "\(outcome.error)"
        )
    }
}
