import FleetClient
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// The offline copy on a real SQLite file, filled by a sync from a real HTTP server.
struct OfflineCopyTests {
    @Test func syncPullsEveryPageAndOfflineReadsApplyTheSameFilters() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(9))
        let file = folder.appendingPathComponent("nested/offline.sqlite")
        let copy = try await OfflineCopy.open(at: file)
        #expect(try await copy.lastSynced() == nil)

        let synced = try await fleetd.serve { server in
            try await FleetClientTests().withClient(server) { client in
                try await client.sync(into: copy, pageSize: 2)
            }
        }
        #expect(synced == 9)
        #expect(try await copy.lastSynced() != nil)
        // The server is gone: everything below reads the file.
        let all = try await copy.vehicles()
        #expect(all.map(\.plate) == vehicles.map(\.plate).sorted())
        let expected = vehicles.map(V2.Vehicle.init(canonical:)).sorted { $0.plate < $1.plate }
        #expect(all == expected)
        let scanias = try await copy.vehicles(matching: VehicleQuery(make: "Scania"))
        #expect(scanias.map(\.plate) == vehicles.filter { $0.make == "Scania" }.map(\.plate).sorted())
        let due = try await copy.vehicles(matching: VehicleQuery(modelYear: 2015, due: true))
        #expect(
            due.map(\.plate) == vehicles.filter { $0.modelYear == 2015 && $0.maintenance.due }.map(\.plate).sorted()
        )
        #expect(try await copy.vehicle(vehicles[4].id)?.plate == vehicles[4].plate)
        #expect(try await copy.vehicle(ModelID()) == nil)
    }

    @Test func aSecondSyncReplacesTheCopyAndTheFileKeepsIt() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("offline.sqlite")
        let first = sampleVehicles(5).map(V2.Vehicle.init(canonical:))
        let copy = try await OfflineCopy.open(at: file)
        try await copy.replaceAll(with: first)
        let second = [
            V2.Vehicle(
                canonical: Vehicle(
                    plate: "ZZ-1",
                    make: "MAN",
                    model: "TGX",
                    modelYear: 2022,
                    maintenance: Maintenance(lastServiced: Date(timeIntervalSince1970: 1_700_000_000))
                )
            )
        ]
        try await copy.replaceAll(with: second)
        #expect(try await copy.vehicles() == second)

        let reopened = try await OfflineCopy.open(at: file)
        #expect(try await reopened.vehicles() == second)
        #expect(try await reopened.vehicle(first[0].id) == nil)
    }

    @Test func aFileThatIsNotADatabaseIsAnOfflineStoreError() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("broken.sqlite")
        try Data("this is not SQLite, not even close; padding padding padding padding padding".utf8).write(to: file)
        let error = await #expect(throws: FleetClientError.self) {
            _ = try await OfflineCopy.open(at: file)
        }
        #expect(error?.code == .offlineStore)
    }
}
