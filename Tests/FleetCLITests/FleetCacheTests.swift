import FleetCLI
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKitTesting
import Testing

/// fleet's persistent HTTP cache (`http-cache.sqlite` in the data folder) against a loopback server: reads keep
/// their answers, `--offline` answers from them, and a file that is not a cache never stops fleet.
struct FleetCacheTests {
    func cacheFile(_ harness: CLIHarness) -> URL {
        harness.folder.appendingPathComponent("data/http-cache.sqlite")
    }

    @Test func readsKeepTheirAnswersForOfflineUseAfterTheServerIsGone() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(3))
        let id = vehicles[1].id.uuidString
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            let online = await harness.run(["vehicles", "get", id, "--json"])
            #expect(online.code == 0, "\(online.error)")
            let raw = await harness.run(["request", "GET", "v2/vehicles/\(vehicles[2].id.uuidString)"])
            #expect(raw.code == 0, "\(raw.error)")
        }
        #expect(FileManager.default.fileExists(atPath: cacheFile(harness).path))

        // No sync ever ran: the offline copy is empty, the cache answers, and says so.
        let offline = await harness.run(["vehicles", "get", id, "--offline", "--json"])
        #expect(offline.code == 0, "\(offline.error)")
        #expect(offline.error.hasPrefix("note: from fleet's HTTP cache, fleetd's answer at "))
        #expect(offline.error.hasSuffix("; the offline copy of \"test\" was never synced ('fleet sync' makes it)\n"))
        #expect(try ModelCoding.decode(V2.Vehicle.self, from: Data(offline.output.utf8)).plate == vehicles[1].plate)

        let v1 = await harness.run(["vehicles", "get", id, "--offline", "--api", "v1", "--json"])
        #expect(v1.code == 0, "\(v1.error)")
        #expect(try ModelCoding.decode(V1.Vehicle.self, from: Data(v1.output.utf8)).tag == vehicles[1].plate)

        let request = await harness.run([
            "request", "GET", "v2/vehicles/\(vehicles[2].id.uuidString)", "--offline", "-i",
        ])
        #expect(request.code == 0, "\(request.error)")
        #expect(request.output.hasPrefix("HTTP 200"))
        #expect(request.output.lowercased().contains("cache-status: requestkit; hit"))
        #expect(request.output.contains(vehicles[2].plate))

        // Never read online: in neither the copy nor the cache, and nothing is sent.
        let unseen = await harness.run(["vehicles", "get", vehicles[0].id.uuidString, "--offline"])
        #expect(unseen.code == 5)
        #expect(unseen.error.contains("nor in fleet's HTTP cache"))
        let unseenRequest = await harness.run(["request", "GET", "v2/vehicles?limit=1", "--offline"])
        #expect(unseenRequest.code == 5)
        #expect(unseenRequest.error.contains("no usable answer in fleet's HTTP cache"))
    }

    @Test func offlineRequestsAreReadsOnly() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["request", "DELETE", "v2/vehicles/x", "--offline"])
        #expect(outcome.code == 2)
        #expect(outcome.error.contains("--offline answers GET and HEAD requests only"))
    }

    @Test(arguments: [Data("this is not a database, it is a note someone left here\n".utf8), Data(count: 4096)])
    func aFileThatIsNotACacheLeavesFleetWorkingWithoutOne(contents: Data) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let file = cacheFile(harness)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file)
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(2))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            for _ in 0..<2 {
                let outcome = await harness.run(["vehicles", "get", vehicles[0].id.uuidString, "--json"])
                #expect(outcome.code == 0, "\(outcome.error)")
                #expect(outcome.error.contains("warning: fleet's HTTP cache \(file.path) cannot be used"))
                #expect(outcome.error.contains("Remove the file to start a new cache."))
            }
            let listed = await harness.run(["vehicles", "list", "--json"])
            #expect(listed.code == 0, "\(listed.error)")
            // Uncached, both reads of the vehicle reached the server.
            let reads = server.receivedRequests.filter { $0.path == "/v2/vehicles/\(vehicles[0].id.uuidString)" }
            #expect(reads.count == 2)
        }
        // Offline, the cache is simply absent: the usual answer, and the file is left as it was.
        let offline = await harness.run(["vehicles", "get", vehicles[0].id.uuidString, "--offline"])
        #expect(offline.code == 5)
        let request = await harness.run(["request", "GET", "v2/vehicles", "--offline"])
        #expect(request.code == 5)
        #expect(request.error.contains("cannot be used, so nothing can be answered offline"))
        #expect(try Data(contentsOf: file) == contents)
    }

    @Test func anOfflineListingBeforeTheFirstSyncSaysItIsTheCachesAnswerAndHowOld() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(3))
        try await fleetd.serve { server in
            try await harness.use(server.baseURL)
            #expect(await harness.run(["vehicles", "list", "--page-size", "2"]).code == 0)
        }
        let outcome = await harness.run(["vehicles", "list", "--offline", "--page-size", "2"])
        #expect(outcome.code == 0, "\(outcome.error)")
        #expect(outcome.output.split(separator: "\n").count == vehicles.count)
        let note = outcome.error
        #expect(note.hasPrefix("note: from fleet's HTTP cache, fleetd's answer at 20"), "\(note)")
        #expect(note.contains("ago); ") || note.contains("(just now); "), "\(note)")
        #expect(note.hasSuffix("the offline copy of \"test\" was never synced ('fleet sync' makes it)\n"))
        #expect(note.split(separator: "\n").count == 1)

        // Other filters were never listed online: nothing offline, exit code 5.
        let other = await harness.run(["vehicles", "list", "--offline", "--make", "Volvo"])
        #expect(other.code == 5)
        #expect(other.error.contains("holds no listing with these filters"))
    }
}
