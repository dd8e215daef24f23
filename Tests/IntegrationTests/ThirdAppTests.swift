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

    @Test func badSettingsAreAllReportedBeforeAnythingIsOpened() async throws {
        let job = try #require(syncJob.0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("no/such/folder/copy.sqlite").path
        let run = try await FleetBinary.run(
            job,
            ["--fleetd", "fleetd.internal:8080", "--store", missing, "--once"],
            folder: folder
        )
        #expect(run.status == 2)
        #expect(run.error.contains("2 configuration problems"), "\(run.error)")
        #expect(run.error.contains("the folder \(folder.path)/no/such/folder of the database file does not exist"))
        #expect(run.error.contains("client \"fleetd\": the base URL fleetd.internal:8080/v2/ is not usable"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
    }
}
