import FleetCLI
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKitTesting
import Testing

/// `fleet sync` with `--offline` reads, `fleet download` and `fleet request`, against a loopback server.
struct FleetTransferTests {
    @Test func syncThenOfflineReadsWorkWithTheServerGone() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(7))
        let port = try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let synced = await harness.run(["sync", "--page-size", "3"])
            #expect(synced.code == 0, "\(synced.error)")
            #expect(synced.output.contains("synced 7 vehicles"))
            #expect(server.receivedRequests.filter { $0.path == "/v2/vehicles" }.count == 3)
            return server.port
        }
        // The daemon is down now: online reads fail, offline reads answer from the copy.
        let online = await harness.run(["vehicles", "list"])
        #expect(online.code == 3)
        #expect(online.error.contains("127.0.0.1:\(port)"))

        let offline = await harness.run(["vehicles", "list", "--offline", "--due", "true", "--json"])
        #expect(offline.code == 0, "\(offline.error)")
        let due = try ModelCoding.decode([V2.Vehicle].self, from: Data(offline.output.utf8))
        #expect(due.map(\.plate) == vehicles.filter(\.maintenance.due).map(\.plate).sorted())

        let one = await harness.run([
            "vehicles", "get", vehicles[2].id.uuidString, "--offline", "--api", "v1", "--json",
        ])
        #expect(one.code == 0)
        #expect(try ModelCoding.decode(V1.Vehicle.self, from: Data(one.output.utf8)).tag == vehicles[2].plate)

        let missing = await harness.run(["vehicles", "get", ModelID<Vehicle>().uuidString, "--offline"])
        #expect(missing.code == 5)
        #expect(missing.error.contains("fleet sync"))
    }

    @Test func anOfflineListingWithNothingOfflineExitsWithFiveAndSaysHowToFillTheCopy() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["vehicles", "list", "--offline"])
        #expect(outcome.code == 5)
        #expect(outcome.output.isEmpty)
        #expect(
            outcome.error
                == "error: nothing to list offline: the offline copy of \"local\" was never synced and fleet's HTTP "
                + "cache holds no listing with these filters; run 'fleet sync' while fleetd can be reached\n"
        )
        let json = await harness.run(["vehicles", "list", "--offline", "--json"])
        #expect(json.code == 5)
        let error = try JSONValue(parsing: json.error)
        #expect(error["error"]?.stringValue == "notFound")
        #expect(error["exitCode"] == .integer(5))
    }

    @Test func offlineReadsOfTheCopySayWhenItWasSynced() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(2))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            #expect(await harness.run(["sync"]).code == 0)
        }
        let before = Date()
        for arguments in [
            ["vehicles", "list", "--offline"], ["vehicles", "get", vehicles[0].id.uuidString, "--offline"],
        ] {
            let outcome = await harness.run(arguments)
            #expect(outcome.code == 0, "\(outcome.error)")
            let prefix = "note: from the offline copy of \"test\", synced at "
            #expect(outcome.error.hasPrefix(prefix), "\(outcome.error)")
            let time = try #require(outcome.error.dropFirst(prefix.count).split(separator: " ").first)
            let synced = try ModelCoding.decode(Date.self, from: Data("\"\(time)\"".utf8))
            #expect(abs(synced.timeIntervalSince(before)) < 60)
            #expect(outcome.error.hasSuffix("ago)\n") || outcome.error.hasSuffix("(just now)\n"), "\(outcome.error)")
        }
        // A synced copy that matches nothing is an answer: an empty listing, as online.
        let none = await harness.run(["vehicles", "list", "--offline", "--make", "Nobody"])
        #expect(none.code == 0, "\(none.error)")
        #expect(none.output.isEmpty)
    }

    @Test func downloadDrawsProgressOnATerminalAndWritesTheWholeFile() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let destination = harness.folder.appendingPathComponent("blob.bin")
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(["download", "files/blob", "--to", destination.path], errorTerminal: true)
            #expect(outcome.code == 0, "\(outcome.error)")
            #expect(outcome.error.contains("100%"))
            #expect(outcome.error.contains("\r["))
            #expect(outcome.output.contains("downloaded"))
            #expect(try Data(contentsOf: destination) == fleetd.blob)
            #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))

            let quiet = await harness.run(["download", "files/blob", "--to", destination.path])
            #expect(quiet.code == 0)
            #expect(quiet.error.isEmpty)
        }
    }

    @Test func downloadResumesAPartialFileWithARangeRequest() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let destination = harness.folder.appendingPathComponent("resumed.bin")
        try fleetd.blob.prefix(100_000).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try await fleetd.serve { server in
            // An absolute URL on another origin than the environment's: sent without the token.
            let outcome = await harness.run(
                ["download", server.baseURL.absoluteString + "files/blob", "--to", destination.path, "--json"],
                environment: ["FLEET_TOKEN": FakeFleetd.token]
            )
            #expect(outcome.code == 0, "\(outcome.error)")
            let result = try JSONValue(parsing: outcome.output)
            #expect(result["resumed"] == .bool(true))
            #expect(result["bytes"]?.intValue == fleetd.blob.count)
            #expect(try Data(contentsOf: destination) == fleetd.blob)
            let request = try #require(server.receivedRequests.last)
            #expect(request.header("Range") == "bytes=100000-")
            #expect(request.header("Authorization") == nil)
        }
    }

    @Test func aFailedDownloadLeavesNoFileAtTheDestination() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let destination = harness.folder.appendingPathComponent("missing.bin")
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let outcome = await harness.run(["download", "files/none", "--to", destination.path, "--no-resume"])
            #expect(outcome.code == 5)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
        }
    }

    @Test func requestPrintsStatusHeadersAndBodyAndExitsByStatus() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        fleetd.seed(sampleVehicles(1))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let health = await harness.run(["request", "GET", "/health", "-i"])
            #expect(health.code == 0)
            #expect(health.output.hasPrefix("HTTP 200"))
            #expect(health.output.lowercased().contains("content-type: application/json"))
            #expect(health.output.contains(#"{"status":"ok","store":"ready"}"#))

            let created = await harness.run(
                [
                    "request", "POST", "v1/vehicles", "-H", "X-Trace: 42", "--data",
                    #"{"tag":"RQ-1","make":"Volvo","model":"FH","year":2021}"#, "--json",
                ],
                environment: ["FLEET_TOKEN": FakeFleetd.token]
            )
            #expect(created.code == 0, "\(created.error)")
            let response = try JSONValue(parsing: created.output)
            #expect(response["status"]?.intValue == 201)
            #expect(response["body"]?["tag"]?.stringValue == "RQ-1")
            let post = try #require(server.receivedRequests.first { $0.method == "POST" })
            #expect(post.header("X-Trace") == "42")
            #expect(post.header("Authorization") == "Bearer \(FakeFleetd.token)")

            let missing = await harness.run(["request", "GET", "v2/vehicles/\(ModelID<Vehicle>().uuidString)"])
            #expect(missing.code == 5)
            #expect(missing.output.hasPrefix("HTTP 404"))
            #expect(missing.output.contains(ProblemType.notFound))
        }
    }
}

/// A long download shows its rate and time left, and Ctrl-C keeps the partial file and says how to resume.
struct FleetInterruptedDownloadTests {
    @Test func ctrlCKeepsThePartialFileAndSaysTheSameCommandResumes() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let destination = harness.folder.appendingPathComponent("big.iso")
        let prefix = Data(repeating: 7, count: 100_000)
        try await TestServer.withTestServer(handler: { _ in
            TestResponse(
                status: 200,
                headers: [("ETag", "\"big-1\""), ("Content-Type", "application/octet-stream")],
                body: .stall(prefix: prefix, declaredLength: 10_000_000)
            )
        }) { server in
            let interruption = Interruption()
            let buffer = OutputBuffer()
            let context = CommandContext(
                environment: harness.environment.merging(["NO_COLOR": "1"]) { $1 },
                output: buffer,
                errorIsTerminal: true,
                interruption: interruption
            )
            let arguments = ["download", server.baseURL.absoluteString + "big.iso", "--to", destination.path]
            let run = Task { await Fleet.run(arguments, context: context) }
            // Wait for a progress line and the whole prefix on disk, then press Ctrl-C.
            let partial = destination.path + ".partial"
            func onDisk() -> Int {
                ((try? FileManager.default.attributesOfItem(atPath: partial))?[.size] as? NSNumber)?.intValue ?? 0
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while !buffer.standardError.contains(" left") || onDisk() < prefix.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(buffer.standardError.contains("/s, "), "\(buffer.standardError)")
            #expect(buffer.standardError.contains(" left"), "\(buffer.standardError)")
            interruption.interrupt()
            let code = await run.value
            #expect(code == 130)
            #expect(
                buffer.standardError.hasSuffix(
                    "\nerror: interrupted: the partial file \(partial) (97.7 KiB) is kept; run the same command to "
                        + "resume, or add --no-resume to start over\n"
                ),
                "\(buffer.standardError)"
            )
            #expect(try Data(contentsOf: URL(fileURLWithPath: partial)) == prefix)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test func aBodyOverRequestsLimitPointsToDownload() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        try await TestServer.withTestServer(handler: { _ in
            TestResponse(status: 200, body: .generated(byte: 1, count: 64 * 1024 * 1024 + 1))
        }) { server in
            let url = server.baseURL.absoluteString + "huge"
            let outcome = await harness.run(["request", "GET", url])
            #expect(outcome.code == 1)
            #expect(
                outcome.error
                    == "error: the response body is larger than 64.0 MiB, the most 'fleet request' prints; save it to "
                    + "a file with 'fleet download \(url) --to FILE'\n"
            )
        }
    }
}
