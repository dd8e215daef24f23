import FleetClient
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import Synchronization
import Testing

/// fleetd killed with SIGKILL while writers run: every write a client was told succeeded is there, with its exact
/// values, after a restart (SQLite) or on another node and after a restart (PostgreSQL); the store opens cleanly.
@Suite(
    "fleetd killed during writes",
    .serialized,
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason))
)
struct CrashTests {
    /// A vehicle a client was told was created.
    struct Acknowledged: Sendable {
        var id: ModelID<Vehicle>
        var input: V2.VehicleInput
    }

    static func client(for daemon: DaemonProcess, transport: AsyncHTTPClientTransport) throws -> FleetClient {
        var settings = RequestClient.Configuration()
        settings.middleware = [FleetClient.authorizationDecorator(token: DaemonProcess.token)]
        return FleetClient(
            requestClient: RequestClient(
                environment: try ServiceEnvironment(name: "crash", baseURL: daemon.baseURL),
                transport: transport,
                configuration: settings
            )
        )
    }

    /// Runs `writers` tasks creating vehicles on `daemon` until it is killed after a random moment; returns every
    /// acknowledged creation.
    static func writeUntilKilled(_ daemon: DaemonProcess, round: Int, writers: Int = 6) async throws -> [Acknowledged] {
        let acknowledged = Shared<[Acknowledged]>([])
        let stopping = Shared(false)
        try await AsyncHTTPClientTransport.withTransport { transport in
            let client = try client(for: daemon, transport: transport)
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var number = 0
                        while !stopping.value.withLock({ $0 }) {
                            number += 1
                            let input = V2.VehicleInput(
                                plate: "K\(round)-\(writer)-\(number)",
                                make: "Scania",
                                model: "R\(number)",
                                modelYear: 2000 + number % 20
                            )
                            do {
                                let created = try await client.v2.create(input)
                                acknowledged.value.withLock { $0.append(Acknowledged(id: created.id, input: input)) }
                            } catch {
                                return  // the daemon is gone: this write was never acknowledged
                            }
                        }
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 150...600)))
                    stopping.value.withLock { $0 = true }
                    await daemon.kill()
                }
            }
        }
        return acknowledged.value.withLock { $0 }
    }

    /// Every acknowledged vehicle is stored with the values it was created with.
    static func expectPresent(_ acknowledged: [Acknowledged], on daemon: DaemonProcess) async throws {
        try await AsyncHTTPClientTransport.withTransport { transport in
            let client = try client(for: daemon, transport: transport)
            var missing = 0
            for entry in acknowledged {
                do {
                    let stored = try await client.v2.get(entry.id)
                    #expect(stored.plate == entry.input.plate)
                    #expect(stored.model == entry.input.model)
                    #expect(stored.modelYear == entry.input.modelYear)
                } catch {
                    missing += 1
                }
            }
            #expect(missing == 0, "\(missing) of \(acknowledged.count) acknowledged vehicles are missing")
        }
    }

    @Test("SQLite: acknowledged writes survive SIGKILL, round after round")
    func sqlite() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        var daemon = try await DaemonProcess(binary: binary)
        let folder = daemon.dataDirectory
        defer { try? FileManager.default.removeItem(at: folder) }
        var total = 0
        for round in 1...3 {
            let acknowledged = try await Self.writeUntilKilled(daemon, round: round)
            total += acknowledged.count
            daemon = try await DaemonProcess(binary: binary, dataDirectory: folder)
            try await Self.expectPresent(acknowledged, on: daemon)
        }
        #expect(total > 0)
        #expect(await daemon.stop() == 0)
    }

    @Test(
        "PostgreSQL, two nodes: one killed during writes; the other has every acknowledged write, and so has the restarted one",
        .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason))
    )
    func postgresTwoNodes() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let url = try #require(TestPostgres.url)
        let schema = "fleet_e2e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let database = ["--database", url + (url.contains("?") ? "&" : "?") + "schema=" + schema]
        var first = try await DaemonProcess(binary: binary, extraArguments: database)
        let second = try await DaemonProcess(binary: binary, extraArguments: database)
        let folder = first.dataDirectory
        defer {
            try? FileManager.default.removeItem(at: folder)
            second.removeData()
        }

        // Written on one node, read, refused when stale and deleted on the other.
        try await AsyncHTTPClientTransport.withTransport { transport in
            let a = try Self.client(for: first, transport: transport)
            let b = try Self.client(for: second, transport: transport)
            let created = try await a.v2.create(
                V2.VehicleInput(plate: "TWO-1", make: "Volvo", model: "FH", modelYear: 2021)
            )
            #expect(try await b.v2.get(created.id).plate == "TWO-1")
            _ = try await a.v2.update(created.id, V2.VehiclePatch(model: "FH16"), ifMatch: created.revision)
            await #expect(throws: FleetClientError.self) {
                _ = try await b.v2.update(created.id, V2.VehiclePatch(model: "FM"), ifMatch: created.revision)
            }
            try await b.v2.delete(created.id, ifMatch: created.revision + 1)
            await #expect(throws: FleetClientError.self) { _ = try await a.v2.get(created.id) }
        }

        for round in 1...2 {
            let acknowledged = try await Self.writeUntilKilled(first, round: round)
            #expect(!acknowledged.isEmpty)
            try await Self.expectPresent(acknowledged, on: second)
            first = try await DaemonProcess(binary: binary, dataDirectory: folder, extraArguments: database)
            try await Self.expectPresent(acknowledged, on: first)
        }
        #expect(await first.stop() == 0)
        #expect(await second.stop() == 0)
    }
}

/// A value tasks share, behind a lock.
private final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }
}
