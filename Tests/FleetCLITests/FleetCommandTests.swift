import FleetCLI
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKitTesting
import Testing

/// Commands run in-process against a loopback server speaking fleetd's contract: output forms and exit codes.
struct FleetCommandTests {
    let token = ["FLEET_TOKEN": FakeFleetd.token]

    @Test func listPrintsATableWithColoursOnATerminal() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        fleetd.seed(sampleVehicles(3))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(["vehicles", "list"], terminal: true)
            #expect(outcome.code == 0)
            let lines = outcome.output.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines[0].contains("PLATE"))
            #expect(lines[0].contains("\u{1B}[1m"))
            #expect(lines[1].contains("AB-000"))

            let plain = await harness.run(["vehicles", "list"], terminal: true, environment: ["NO_COLOR": "1"])
            #expect(plain.output.contains("PLATE"))
            #expect(!plain.output.contains("\u{1B}["))
        }
    }

    @Test func listPrintsTabSeparatedLinesWhenPipedAndJSONWithTheFlag() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(5))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let piped = await harness.run(["vehicles", "list", "--page-size", "2"])
            #expect(piped.code == 0)
            let rows = piped.output.split(separator: "\n").map {
                $0.split(separator: "\t", omittingEmptySubsequences: false)
            }
            #expect(rows.count == 5)
            #expect(rows.allSatisfy { $0.count == 8 })
            #expect(!piped.output.contains("PLATE"))
            #expect(!piped.output.contains("\u{1B}["))

            let json = await harness.run(["vehicles", "list", "--json", "--make", "Volvo"])
            #expect(json.code == 0)
            let decoded = try ModelCoding.decode([V2.Vehicle].self, from: Data(json.output.utf8))
            #expect(decoded.map(\.plate) == vehicles.filter { $0.make == "Volvo" }.map(\.plate).sorted())

            let v1 = await harness.run(["vehicles", "list", "--json", "--api", "v1"])
            let old = try ModelCoding.decode([V1.Vehicle].self, from: Data(v1.output.utf8))
            #expect(old.count == 5)
            #expect(v1.output.contains("\"tag\""))

            // Global options before the command, between the group and the command, or after it: all the same.
            for arguments in [
                ["--api", "v1", "--json", "vehicles", "list"], ["vehicles", "--api", "v1", "--json", "list"],
                ["--json", "vehicles", "list", "--api", "v1"],
            ] {
                let outcome = await harness.run(arguments)
                #expect(outcome.code == 0, "\(arguments): \(outcome.error)")
                #expect(outcome.output == v1.output, "\(arguments)")
            }
        }
    }

    @Test func addGetUpdateAndRemoveAVehicle() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let added = await harness.run(
                [
                    "vehicles", "add", "--plate", "XY-9", "--make", "Volvo", "--model", "FH", "--year", "2020",
                    "--last-serviced", "2024-05-01", "--json",
                ],
                environment: token
            )
            #expect(added.code == 0, "\(added.error)")
            let vehicle = try ModelCoding.decode(V2.Vehicle.self, from: Data(added.output.utf8))
            #expect(vehicle.maintenance.lastServiced == Date(timeIntervalSince1970: 1_714_521_600))

            let shown = await harness.run(["vehicles", "get", vehicle.id.uuidString])
            #expect(shown.output.contains("plate:"))
            #expect(shown.output.contains("XY-9"))

            let updated = await harness.run(
                ["vehicles", "update", vehicle.id.uuidString, "--model", "FH16", "--due", "true", "--json"],
                environment: token
            )
            #expect(updated.code == 0, "\(updated.error)")
            let after = try ModelCoding.decode(V2.Vehicle.self, from: Data(updated.output.utf8))
            #expect(after.model == "FH16")
            #expect(after.maintenance.due)
            #expect(after.revision == 2)

            let v1 = await harness.run(
                ["vehicles", "update", vehicle.id.uuidString, "--api", "v1", "--plate", "XY-10"],
                environment: token
            )
            #expect(v1.code == 0, "\(v1.error)")
            #expect(v1.output.contains("XY-10"))

            let removed = await harness.run(["vehicles", "remove", vehicle.id.uuidString], environment: token)
            #expect(removed.code == 0)
            #expect(fleetd.count == 0)
        }
    }

    @Test func dueIsSpeltTheSameInAddUpdateAndListAndNeverServicedReadsTheSameEverywhere() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let add = ["vehicles", "add", "--make", "Volvo", "--model", "FH", "--year", "2020", "--json"]
            var created: [V2.Vehicle] = []
            for (plate, due) in [("D-1", ["--due"]), ("D-2", ["--due", "true"]), ("D-3", ["--due", "false"])] {
                let outcome = await harness.run(add + ["--plate", plate] + due, environment: token)
                #expect(outcome.code == 0, "\(due): \(outcome.error)")
                created.append(try ModelCoding.decode(V2.Vehicle.self, from: Data(outcome.output.utf8)))
            }
            #expect(created.map(\.maintenance.due) == [true, true, false])

            let updated = await harness.run(
                ["vehicles", "update", "--due", created[2].id.uuidString, "--json"],
                environment: token
            )
            #expect(updated.code == 0, "\(updated.error)")
            #expect(try ModelCoding.decode(V2.Vehicle.self, from: Data(updated.output.utf8)).maintenance.due)
            let cleared = await harness.run(
                ["vehicles", "update", created[0].id.uuidString, "--due", "false", "--json"],
                environment: token
            )
            #expect(try ModelCoding.decode(V2.Vehicle.self, from: Data(cleared.output.utf8)).maintenance.due == false)

            let due = await harness.run(["vehicles", "list", "--due"])
            #expect(due.code == 0, "\(due.error)")
            #expect(due.output.split(separator: "\n").map { $0.split(separator: "\t")[1] } == ["D-2", "D-3"])

            // Never serviced: the same word in a list, a table and `get`.
            let piped = await harness.run(["vehicles", "list"])
            #expect(piped.output.split(separator: "\n").allSatisfy { $0.split(separator: "\t")[6] == "never" })
            let table = await harness.run(["vehicles", "list"], terminal: true, environment: ["NO_COLOR": "1"])
            #expect(table.output.contains("  never  "))
            let shown = await harness.run(["vehicles", "get", created[0].id.uuidString])
            #expect(shown.output.contains("lastServiced: never"))
        }
    }

    @Test func theTokenFallsBackToFleetdsTokenFileForALoopbackDaemonOnItsPort() async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let daemonFolder = URL(fileURLWithPath: try #require(harness.environment["FLEETD_DATA_DIR"]))
        try FileManager.default.createDirectory(at: daemonFolder, withIntermediateDirectories: true)
        try Data("\(FakeFleetd.token)\n".utf8).write(to: daemonFolder.appendingPathComponent("token"))
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            // The default daemon's port: $FLEETD_PORT, else its fleetd.json, else 8080.
            harness.environment["FLEETD_PORT"] = String(server.port)
            let added = await harness.run([
                "vehicles", "add", "--plate", "T-1", "--make", "Volvo", "--model", "FH", "--year", "2020",
            ])
            #expect(added.code == 0, "\(added.error)")
            let auth = server.receivedRequests.first { $0.method == "POST" }?.header("Authorization")
            #expect(auth == "Bearer \(FakeFleetd.token)")
        }
    }

    // MARK: - Exit codes

    @Test func theDaemonBeingDownExitsWithThree() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let port = try await closedPort()
        try await harness.use(try #require(URL(string: "http://127.0.0.1:\(port)")))
        let started = ContinuousClock.now
        // A connect timeout far longer than the retries: the answer must come from the refused connections, not
        // from waiting it out (a bound close to the retries' 3.1 s would fail on a loaded machine for no reason).
        let outcome = await harness.run(["vehicles", "list"], connectTimeout: .seconds(120))
        #expect(outcome.code == 3)
        #expect(outcome.error.contains("cannot reach fleetd at http://127.0.0.1:\(port): is it running?"))
        // 3.1 s of retries for a daemon that may be restarting, then the answer (not the 120 s connect timeout).
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func aWrongOrMissingTokenExitsWithFour() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let add = ["vehicles", "add", "--plate", "T-1", "--make", "Volvo", "--model", "FH", "--year", "2020"]
            let missing = await harness.run(add)
            #expect(missing.code == 4)
            #expect(missing.error.contains("token"))
            let wrong = await harness.run(add + ["--token", "nope"])
            #expect(wrong.code == 4)
        }
    }

    @Test func anUnknownVehicleExitsWithFive() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(["vehicles", "get", ModelID<Vehicle>().uuidString, "--json"])
            #expect(outcome.code == 5)
            let error = try JSONValue(parsing: outcome.error)
            #expect(error["error"]?.stringValue == "notFound")
            #expect(error["problem"]?["type"]?.stringValue == ProblemType.notFound)
        }
    }

    @Test func aStaleRevisionOrADuplicatePlateExitsWithSix() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(2))
        fleetd.touch(vehicles[0].id)
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let stale = await harness.run(
                ["vehicles", "update", vehicles[0].id.uuidString, "--make", "MAN", "--revision", "1"],
                environment: token
            )
            #expect(stale.code == 6)
            #expect(stale.error.contains("412"))
            let duplicate = await harness.run(
                ["vehicles", "add", "--plate", vehicles[1].plate, "--make", "MAN", "--model", "TGX", "--year", "2020"],
                environment: token
            )
            #expect(duplicate.code == 6)
            #expect(duplicate.error.contains("plate is already taken"))
            let staleRemove = await harness.run(
                ["vehicles", "remove", vehicles[0].id.uuidString, "--revision", "1"],
                environment: token
            )
            #expect(staleRemove.code == 6)
            #expect(fleetd.count == 2)
        }
    }

    @Test func aRefusedInputExitsWithSevenAndListsTheFieldPaths() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(
                ["vehicles", "add", "--plate", "bad/plate!", "--make", "Volvo", "--model", "FH", "--year", "1700"],
                environment: token
            )
            #expect(outcome.code == 7)
            #expect(outcome.error.contains("plate: may contain only letters, digits, spaces and dashes"))
            #expect(outcome.error.contains("modelYear:"))
            let badID = await harness.run(["vehicles", "get", "not-a-uuid"])
            #expect(badID.code == 7)
            #expect(badID.error.contains("not a vehicle ID"))
        }
    }

    @Test func anUnknownEnvironmentExitsWithFive() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        #expect(await harness.run(["vehicles", "list", "--env", "nowhere"]).code == 5)
        #expect(await harness.run(["env", "use", "nowhere"]).code == 5)
    }
}

/// fleet rides out a daemon that is restarting.
struct FleetRestartTests {
    @Test(.timeLimit(.minutes(1)))
    func aCommandSentWhileTheDaemonRestartsSucceedsOnceItIsBack() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let port = try await releasedPort()
        try await harness.use(try #require(URL(string: "http://127.0.0.1:\(port)")))
        let fleetd = FakeFleetd()
        // The command starts while nothing listens; the daemon comes back on the same port a moment later.
        async let outcome = harness.run(["vehicles", "list", "--json"])
        try await Task.sleep(for: .milliseconds(300))
        let server = try await TestServer.start(port: port, handler: { request in fleetd.handle(request) })
        let result = await outcome
        try await server.shutdown()
        #expect(result.code == 0, "\(result.error)")
        #expect(server.receivedRequests.count == 1)
    }
}
