import FleetCLI
import FleetClient
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import Testing

/// `fleetd` as a real process, driven through `fleet`'s command paths and through v1 and v2 clients.
@Suite(
    "fleetd and fleet end to end",
    .serialized,
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason))
)
struct FleetEndToEndTests {
    /// Runs `fleet` in-process with private configuration and data folders, pointed at `daemon`.
    struct CLI {
        let folder: URL
        var environment: [String: String]

        init(folder: URL) {
            self.folder = folder
            environment = [
                "HOME": folder.appendingPathComponent("home").path,
                "FLEET_CONFIG_DIR": folder.appendingPathComponent("config").path,
                "FLEET_DATA_DIR": folder.appendingPathComponent("data").path,
                "FLEETD_DATA_DIR": folder.appendingPathComponent("no-daemon-here").path,
                "FLEET_TOKEN": DaemonProcess.token,
                "NO_COLOR": "1",
            ]
        }

        func run(_ arguments: [String]) async -> (code: Int32, output: String, error: String) {
            let buffer = OutputBuffer()
            let code = await Fleet.run(arguments, context: CommandContext(environment: environment, output: buffer))
            return (code, buffer.standardOutput, buffer.standardError)
        }
    }

    func withClient<Result>(
        _ daemon: DaemonProcess,
        _ body: (FleetClient) async throws -> Result
    ) async throws -> Result {
        try await AsyncHTTPClientTransport.withTransport { transport in
            var settings = RequestClient.Configuration()
            settings.middleware = [FleetClient.authorizationDecorator(token: DaemonProcess.token)]
            let environment = try ServiceEnvironment(name: "e2e", baseURL: daemon.baseURL)
            return try await body(
                FleetClient(
                    requestClient: RequestClient(
                        environment: environment,
                        transport: transport,
                        configuration: settings
                    )
                )
            )
        }
    }

    @Test("create in v2, read in v1, conflict on a stale revision, offline copy after sync, graceful stop")
    func fleetStory() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let daemon = try await DaemonProcess(binary: binary)
        defer { daemon.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = CLI(folder: folder)

        let added = await cli.run(["env", "add", "e2e", daemon.baseURL.absoluteString, "--use"])
        #expect(added.code == 0, "\(added.error)")

        // Create in v2 through the CLI.
        let created = await cli.run([
            "vehicles", "add", "--plate", "E2E-1", "--make", "Volvo", "--model", "FH16", "--year", "2019",
            "--last-serviced", "2020-01-15", "--json",
        ])
        #expect(created.code == 0, "\(created.error)")
        let createdJSON = try JSONValue(parsing: created.output)
        guard case .string(let idText) = createdJSON["id"] else {
            Issue.record("no id in \(created.output)")
            return
        }
        #expect(createdJSON["revision"] == .integer(1))
        #expect(createdJSON["maintenance"]?["due"] == .bool(true), "serviced more than 12 months ago")

        // Read it in v1, through the CLI and through a v1 client.
        let v1Read = await cli.run(["vehicles", "get", idText, "--api", "v1", "--json"])
        #expect(v1Read.code == 0, "\(v1Read.error)")
        let v1JSON = try JSONValue(parsing: v1Read.output)
        #expect(v1JSON["tag"] == .string("E2E-1"))
        #expect(v1JSON["year"] == .integer(2019))
        #expect(v1JSON["needsMaintenance"] == .bool(true))
        #expect(v1JSON["revision"] == nil && v1JSON["plate"] == nil, "v1's shape stays v1")

        let id = try ModelID<Vehicle>(parsing: idText)
        try await withClient(daemon) { client in
            let v1 = try await client.v1.get(id)
            #expect(
                v1 == V1.Vehicle(id: id, tag: "E2E-1", make: "Volvo", model: "FH16", year: 2019, needsMaintenance: true)
            )

            // A v1 replacement keeps what v1 cannot show; v2 sees it, at revision 2.
            _ = try await client.v1.replace(
                id,
                with: V1.VehicleInput(tag: "E2E-1", make: "Volvo", model: "FH", year: 2019)
            )
            let (v2, revision) = try await client.v2.getWithRevision(id)
            #expect(revision == 2)
            #expect(v2.model == "FH")
            #expect(v2.maintenance.lastServiced != nil)

            // A write based on revision 1 is refused, and nothing is written.
            let stale = await #expect(throws: FleetClientError.self) {
                try await client.v2.update(id, V2.VehiclePatch(model: "stale"), ifMatch: 1)
            }
            #expect(stale?.status == 412)
            #expect(try await client.v2.get(id).model == "FH")
        }
        let staleCLI = await cli.run(["vehicles", "update", idText, "--model", "stale", "--revision", "1"])
        #expect(staleCLI.code == FleetExitCode.conflict, "\(staleCLI.output) \(staleCLI.error)")
        let fresh = await cli.run(["vehicles", "update", idText, "--model", "FH16", "--json"])
        #expect(fresh.code == 0, "\(fresh.error)")
        #expect(try JSONValue(parsing: fresh.output)["revision"] == .integer(3))

        // A second vehicle, a duplicate plate, a validation error with its path, a wrong token.
        #expect(
            await cli.run(["vehicles", "add", "--plate", "E2E-2", "--make", "MAN", "--model", "TGX", "--year", "2021"])
                .code == 0
        )
        let duplicate = await cli.run([
            "vehicles", "add", "--plate", "E2E-2", "--make", "MAN", "--model", "TGX", "--year", "2021",
        ])
        #expect(duplicate.code == FleetExitCode.conflict)
        let invalid = await cli.run([
            "vehicles", "add", "--plate", "E2E/3", "--make", "MAN", "--model", "TGX", "--year", "1700",
        ])
        #expect(invalid.code == FleetExitCode.validation)
        #expect(invalid.error.contains("plate") && invalid.error.contains("modelYear"), "\(invalid.error)")
        let wrongToken = await cli.run(["vehicles", "remove", idText, "--token", "not-the-token"])
        #expect(wrongToken.code == FleetExitCode.unauthorized)

        // Sync into the offline copy, stop the daemon gracefully, read offline.
        let synced = await cli.run(["sync"])
        #expect(synced.code == 0, "\(synced.error)")
        #expect(await daemon.stop() == 0, "fleetd exits cleanly on SIGTERM")
        #expect(daemon.logText.contains("\"message\":\"closed store\""), "the store is closed during graceful shutdown")
        let offline = await cli.run(["vehicles", "list", "--offline", "--json"])
        #expect(offline.code == 0, "\(offline.error)")
        guard case .array(let vehicles) = try JSONValue(parsing: offline.output) else {
            Issue.record("offline list is not an array: \(offline.output)")
            return
        }
        #expect(vehicles.compactMap { $0["plate"] } == [.string("E2E-1"), .string("E2E-2")])
        let offlineV1 = await cli.run(["vehicles", "get", idText, "--offline", "--api", "v1", "--json"])
        #expect(try JSONValue(parsing: offlineV1.output)["tag"] == .string("E2E-1"))

        // With the daemon down, online commands say so.
        let down = await cli.run(["vehicles", "list"])
        #expect(down.code == FleetExitCode.unreachable)
        #expect(down.error.contains("is it running"), "\(down.error)")
    }

    /// fleetd's count of `GET` answers on `route`, by status, from its `/metrics`.
    func answers(_ cli: CLI, route: String) async throws -> [String: Int] {
        let metrics = await cli.run(["request", "GET", "/metrics"])
        #expect(metrics.code == 0, "\(metrics.error)")
        var counts: [String: Int] = [:]
        for line in metrics.output.split(separator: "\n") where line.hasPrefix("fleetd_http_requests_total{") {
            guard line.contains(#"method="GET""#), line.contains(#"route="\#(route)""#),
                let statusRange = line.range(of: #"status=""#),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            let status = line[statusRange.upperBound...].prefix { $0 != "\"" }
            counts[String(status), default: 0] += Int(value)
        }
        return counts
    }

    @Test("a repeated read is revalidated and answered 304; offline, fleet's cache answers once fleetd is gone")
    func persistentCache() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let daemon = try await DaemonProcess(binary: binary)
        defer { daemon.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cli = CLI(folder: folder)
        #expect(await cli.run(["env", "add", "e2e", daemon.baseURL.absoluteString, "--use"]).code == 0)
        let created = try await withClient(daemon) { client in
            try await client.v2.create(V2.VehicleInput(plate: "CACHE-1", make: "Scania", model: "R", modelYear: 2020))
        }
        let id = created.id.uuidString
        let route = "/v2/vehicles/{id}"

        let first = await cli.run(["vehicles", "get", id, "--json"])
        #expect(first.code == 0, "\(first.error)")
        #expect(try await answers(cli, route: route) == ["200": 1])
        let second = await cli.run(["vehicles", "get", id, "--json"])
        #expect(second.code == 0, "\(second.error)")
        #expect(second.output == first.output)
        #expect(try await answers(cli, route: route) == ["200": 1, "304": 1], "the second read was revalidated")

        // A write changes the answer: the next read is a full one again, never the kept copy.
        _ = try await withClient(daemon) { client in
            try await client.v2.update(created.id, V2.VehiclePatch(model: "S"), ifMatch: created.revision)
        }
        let changed = await cli.run(["vehicles", "get", id, "--json"])
        #expect(try JSONValue(parsing: changed.output)["model"] == .string("S"))
        #expect(try await answers(cli, route: route) == ["200": 2, "304": 1])

        let listed = await cli.run(["vehicles", "list", "--json"])
        #expect(listed.code == 0, "\(listed.error)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/http-cache.sqlite").path))

        // fleetd is gone and no sync ever ran: the cache answers what was read.
        #expect(await daemon.stop() == 0)
        let offline = await cli.run(["vehicles", "get", id, "--offline", "--json"])
        #expect(offline.code == 0, "\(offline.error)")
        #expect(offline.output == changed.output)
        let offlineList = await cli.run(["vehicles", "list", "--offline", "--json"])
        #expect(offlineList.code == 0, "\(offlineList.error)")
        #expect(offlineList.output == listed.output)
        #expect(!offlineList.error.contains("run 'fleet sync' first"))
        let raw = await cli.run(["request", "GET", "v2/vehicles/\(id)", "--offline"])
        #expect(raw.code == 0, "\(raw.error)")
        #expect(raw.output.contains(#""model":"S""#) || raw.output.contains(#""model": "S""#), "\(raw.output)")
        let online = await cli.run(["vehicles", "get", id])
        #expect(online.code == FleetExitCode.unreachable, "without --offline, fleet still asks fleetd")
    }

    @Test("the data survives a restart on the same data directory")
    func restart() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let first = try await DaemonProcess(binary: binary)
        defer { first.removeData() }
        let created = try await withClient(first) { client in
            try await client.v2.create(V2.VehicleInput(plate: "KEEP-1", make: "DAF", model: "XF", modelYear: 2022))
        }
        #expect(await first.stop() == 0)
        let second = try await DaemonProcess(binary: binary, dataDirectory: first.dataDirectory)
        let read = try await withClient(second) { client in try await client.v1.get(created.id) }
        #expect(read.tag == "KEEP-1")
        #expect(await second.stop() == 0)
    }
}
