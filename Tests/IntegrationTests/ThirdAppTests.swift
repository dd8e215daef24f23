import FleetTestSupport
import Foundation
import HTTPTypes
import LocatorKit
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import ServiceModules
import StoreKitLite
import Testing

/// The built `fleet-sync` example (`docs/examples/fleet-sync`), or `nil` with the reason its tests are skipped.
private let syncJob = DaemonProcess.builtExecutable(named: "fleet-sync")

private let postgresURL = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

/// The example's record, read back from the store it fills.
struct VehicleCopy: Record {
    var id: ModelID<VehicleCopy>
    var plate = "", make = "", model = "", modelYear = 0, due = false
    init(id: ModelID<VehicleCopy>) { self.id = id }
    static let schema = RecordSchema<VehicleCopy>(
        "vehicles",
        Column("plate", \.plate),
        Column("make", \.make),
        Column("model", \.model),
        Column("modelYear", \.modelYear),
        Column("due", \.due)
    )
}

/// The third app, a sync job built from the modules alone, against a real fleetd: it copies the vehicles into a
/// SQLite file or a PostgreSQL schema, follows a delete, and refuses bad settings before it connects anywhere.
@Suite(
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason)),
    .enabled(if: syncJob.0 != nil, Comment(rawValue: syncJob.1))
)
struct ThirdAppTests {
    /// A client that writes to the daemon with its token.
    static func writer(for daemon: DaemonProcess, transport: AsyncHTTPClientTransport) throws -> RequestClient {
        var settings = RequestClient.Configuration()
        settings.headerFields[.authorization] = "Bearer \(DaemonProcess.token)"
        return RequestClient(
            environment: try ServiceEnvironment(name: "fleetd", baseURL: daemon.baseURL.appendingPathComponent("v2/")),
            transport: transport,
            configuration: settings
        )
    }

    /// Reads the copy the job left in the store at `url`.
    static func copiedPlates(in url: String) async throws -> [String] {
        let locator = Locator()
        try locator.installChecked([StoreModule(url: url, model: StoreModel(VehicleCopy.self))])
        let store = try await locator.resolve(PersistenceService.self)
        try await store.waitUntilInitialized()
        let plates = try await store.fetch(VehicleCopy.self).map(\.plate).sorted()
        try await locator.resolve(ModuleLifecycles.self).shutdown()
        return plates
    }

    func syncAgainst(store: (URL) -> String) async throws {
        let fleetd = try #require(DaemonProcess.located.binary)
        let job = try #require(syncJob.0)
        let daemon = try await DaemonProcess(binary: fleetd)
        let folder = daemon.dataDirectory.appendingPathComponent("sync")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let storeURL = store(folder)
        try await AsyncHTTPClientTransport.withTransport { transport in
            let client = try Self.writer(for: daemon, transport: transport)
            var ids: [String] = []
            for (plate, year) in [("SYNC-1", 2019), ("SYNC-2", 2020), ("SYNC-3", 2021)] {
                let created = try await client.post(
                    "vehicles",
                    parameters: ["plate": plate, "make": "Volvo", "model": "FH16", "modelYear": year]
                )
                ids.append(try #require(created.value.json?["id"]?.stringValue))
            }
            let arguments = ["--fleetd", daemon.baseURL.absoluteString, "--store", storeURL, "--once"]
            let first = try await FleetBinary.run(job, arguments, folder: folder)
            #expect(first.status == 0, "\(first.error)")
            #expect(first.output.contains("synced 3 vehicles"), "\(first.output)")
            #expect(try await Self.copiedPlates(in: storeURL) == ["SYNC-1", "SYNC-2", "SYNC-3"])

            _ = try await client.delete("vehicles/\(ids[1])")
            let second = try await FleetBinary.run(job, arguments, folder: folder)
            #expect(second.status == 0, "\(second.error)")
            #expect(second.output.contains("synced 2 vehicles"), "\(second.output)")
            #expect(try await Self.copiedPlates(in: storeURL) == ["SYNC-1", "SYNC-3"])
        }
        #expect(await daemon.stop() == 0)
        daemon.removeData()
    }

    @Test func theJobCopiesTheFleetIntoASQLiteFile() async throws {
        try await syncAgainst { $0.appendingPathComponent("copy.sqlite").path }
    }

    @Test(.enabled(if: postgresURL != nil, "STOREKITLITE_POSTGRES_URL is not set"))
    func theJobCopiesTheFleetIntoPostgreSQL() async throws {
        let url = try #require(postgresURL)
        let schema = "sync_" + UUID().uuidString.prefix(8).lowercased()
        try await syncAgainst { _ in url + (url.contains("?") ? "&" : "?") + "schema=" + schema }
    }
}

/// fleet-sync's flags, usage text and failures, which need no fleetd: its errors name its flags or fleetd's URL,
/// never the modules' settings, and an unreachable fleetd is said in one line within seconds.
@Suite(.enabled(if: syncJob.0 != nil, Comment(rawValue: syncJob.1)))
struct ThirdAppFlagTests {
    static func withFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    @Test func badFlagsAreAllReportedByFlagBeforeAnythingIsOpened() async throws {
        let job = try #require(syncJob.0)
        try await Self.withFolder { folder in
            let missing = folder.appendingPathComponent("no/such/folder/copy.sqlite").path
            let run = try await FleetBinary.run(
                job,
                ["--fleetd", "fleetd.internal:8080", "--store", missing, "--once"],
                folder: folder
            )
            #expect(run.status == 2)
            #expect(
                run.error == """
                    fleet-sync: 2 problems with the flags:
                      - --fleetd fleetd.internal:8080 has no scheme: did you mean http://fleetd.internal:8080?
                      - --store \(missing): the folder \(folder.path)/no/such/folder of the database file does not exist
                      See 'fleet-sync --help'.

                    """
            )
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))

            let versioned = try await FleetBinary.run(
                job,
                ["--fleetd", "http://127.0.0.1:8080/v2", "--store", "postgres://sync:s3cret@db/fleet", "--every", "0"],
                folder: folder
            )
            #expect(versioned.status == 2)
            #expect(
                versioned.error.contains(
                    "--fleetd http://127.0.0.1:8080/v2 ends in the API version /v2, which fleet-sync adds itself: "
                        + "give http://127.0.0.1:8080"
                )
            )
            #expect(versioned.error.contains("--every 0: give a number of seconds, 1 or more"))
            #expect(!versioned.error.contains("s3cret"))
            for key in ["configuration problem", "client \"fleetd\"", "/v2/", "store:"] {
                #expect(!run.error.contains(key) && !versioned.error.contains(key), "\(key)")
            }

            let missingFlag = try await FleetBinary.run(job, ["--fleetd", "http://127.0.0.1:8080"], folder: folder)
            #expect(missingFlag.status == 2)
            #expect(missingFlag.error.hasPrefix("Error: Missing expected argument '--store <store>'"))
        }
    }

    @Test func helpPrintsTheUsageAndEveryFlag() async throws {
        let job = try #require(syncJob.0)
        try await Self.withFolder { folder in
            let run = try await FleetBinary.run(job, ["--help"], folder: folder)
            #expect(run.status == 0)
            #expect(run.error.isEmpty)
            #expect(
                run.output.contains("USAGE: fleet-sync --fleetd <fleetd> --store <store> [--once] [--every <every>]")
            )
            for flag in ["--fleetd <fleetd>", "--store <store>", "--once", "--every <every>", "EXIT CODES"] {
                #expect(run.output.contains(flag), "\(flag)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func onceWithFleetdDownFailsWithinSecondsInOneLine() async throws {
        let job = try #require(syncJob.0)
        let port = try await closedPort()
        try await Self.withFolder { folder in
            let store = folder.appendingPathComponent("copy.sqlite")
            let started = ContinuousClock.now
            let run = try await FleetBinary.run(
                job,
                ["--fleetd", "http://127.0.0.1:\(port)", "--store", store.path, "--once"],
                folder: folder
            )
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(run.status == 3)
            #expect(
                run.error
                    == "fleet-sync: fleetd at http://127.0.0.1:\(port) is not reachable: nothing accepts connections there\n"
            )
            #expect(run.output.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: store.path), "fleetd is read before the store is opened")
        }
    }
}
