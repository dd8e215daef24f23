import FleetCLI
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKitTesting
import Testing

/// Which token goes to which daemon, and a `401` that says which token was refused.
struct FleetTokenTests {
    static let add = ["vehicles", "add", "--plate", "T-1", "--make", "Volvo", "--model", "FH", "--year", "2020"]

    /// Writes `token` as the default daemon's token file and returns its path.
    static func writeDefaultTokenFile(_ harness: CLIHarness, _ token: String) throws -> String {
        let folder = URL(fileURLWithPath: try #require(harness.environment["FLEETD_DATA_DIR"]))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("token")
        try Data("\(token)\n".utf8).write(to: file)
        return file.path
    }

    @Test func aSecondDaemonOnAnotherPortNeverGetsTheDefaultDaemonsToken() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let defaultFile = try Self.writeDefaultTokenFile(harness, "the-default-daemons-token")
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(Self.add)
            #expect(outcome.code == 4)
            #expect(server.receivedRequests.first { $0.method == "POST" }?.header("Authorization") == nil)
            #expect(outcome.error.contains("no token was sent"), "\(outcome.error)")
            #expect(outcome.error.contains(defaultFile), "\(outcome.error)")
            #expect(outcome.error.contains("port 8080, not \(server.port)"), "\(outcome.error)")
            #expect(outcome.error.contains("--token-file"), "\(outcome.error)")
        }
    }

    @Test func envAddRecordsATokenFileThatIsReadAtEachRun() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let secondData = harness.folder.appendingPathComponent("second-fleetd")
        try FileManager.default.createDirectory(at: secondData, withIntermediateDirectories: true)
        let tokenFile = secondData.appendingPathComponent("token")
        try Data("\(FakeFleetd.token)\n".utf8).write(to: tokenFile)
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            let added = await harness.run([
                "env", "add", "second", server.baseURL.absoluteString, "--token-file", tokenFile.path, "--use",
            ])
            #expect(added.code == 0, "\(added.error)")
            let listed = await harness.run(["env", "list"])
            #expect(listed.output.contains("(token file \(tokenFile.path))"), "\(listed.output)")

            let created = await harness.run(Self.add)
            #expect(created.code == 0, "\(created.error)")
            let auth = server.receivedRequests.first { $0.method == "POST" }?.header("Authorization")
            #expect(auth == "Bearer \(FakeFleetd.token)")

            // The daemon made a new token: the next run reads it, and a refusal names the file.
            try Data("a-newer-token\n".utf8).write(to: tokenFile)
            let refused = await harness.run(["vehicles", "remove", ModelID<Vehicle>().uuidString])
            #expect(refused.code == 4)
            #expect(refused.error.contains("fleetd refused the token from the token file \(tokenFile.path)"))
        }
        let both = await harness.run(["env", "add", "x", "http://127.0.0.1:1", "--token", "t", "--token-file", "f"])
        #expect(both.code == 2)
    }

    @Test(arguments: [
        (["--token", "wrong-token"], [:], "fleetd refused the token from --token"),
        ([], ["FLEET_TOKEN": "wrong-token"], "fleetd refused the token from $FLEET_TOKEN"),
    ])
    func aRefusedTokenIsNamedByItsSource(
        arguments: [String],
        environment: [String: String],
        message: String
    )
        async throws
    {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(Self.add + arguments, environment: environment)
            #expect(outcome.code == 4)
            #expect(outcome.error.contains(message), "\(outcome.error)")
            #expect(outcome.error.contains("set FLEET_TOKEN"), "\(outcome.error)")

            let raw = await harness.run(
                ["request", "POST", "v2/vehicles", "-d", "{}"] + arguments,
                environment: environment
            )
            #expect(raw.code == 4)
            #expect(raw.error.contains(message), "\(raw.error)")
        }
    }

    @Test func theDefaultDaemonsPortComesFromItsConfigurationFile() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        _ = try Self.writeDefaultTokenFile(harness, FakeFleetd.token)
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let folder = URL(fileURLWithPath: try #require(harness.environment["FLEETD_DATA_DIR"]))
            try Data(#"{"port": \#(server.port)}"#.utf8).write(to: folder.appendingPathComponent("fleetd.json"))
            let outcome = await harness.run(Self.add)
            #expect(outcome.code == 0, "\(outcome.error)")
        }
    }
}
