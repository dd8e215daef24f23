import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Connections that send nothing, trickle a head or trickle a body are closed by the daemon, while others are
/// served.
struct ConnectionLimitTests {
    @Test(.timeLimit(.minutes(1)))
    func idleAndTricklingConnectionsAreClosedWhileHealthStaysServed() async throws {
        let fixture = try ServerFixture { configuration in
            configuration.idleTimeoutSeconds = 1
            configuration.bodyTimeoutSeconds = 2
        }
        try await fixture.withServer { client in
            let port = try #require(client.port)
            let idle = try (0..<100).map { _ in try RawConnection(port: port) }
            let tricklingHeads = try (0..<20).map { _ in try RawConnection(port: port) }
            let tricklingBodies = try (0..<20).map { _ in try RawConnection(port: port) }
            for connection in tricklingBodies {
                try connection.send(
                    "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ServerFixture.token)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
                )
            }
            // Four seconds of trickling, a byte every 200 ms, with a health check each round.
            let start = ContinuousClock.now
            var slowestHealth = Duration.zero
            for round in 0..<20 {
                for connection in tricklingHeads {
                    try? connection.send(round == 0 ? "GET /health HTTP/1.1\r\nX: " : "a")
                }
                for connection in tricklingBodies { try? connection.send(" ") }
                let asked = ContinuousClock.now
                // A new connection each round, read off the cooperative pool (which the daemon in this process needs):
                // on a loaded machine more than the 1 s idle timeout can pass between two rounds, and the daemon then
                // rightly closes a connection kept from the round before.
                let health = try await RawConnection.offPool {
                    let probe = try RawConnection(port: port)
                    try probe.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    return probe.receiveResponse()
                }
                #expect(health.hasPrefix("HTTP/1.1 200 "), "\(health)")
                slowestHealth = max(slowestHealth, ContinuousClock.now - asked)
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(ContinuousClock.now - start >= .seconds(4))
            // Served every round, and never held up by the connections above (the bound is loose: the whole suite
            // runs in parallel on two cores).
            #expect(slowestHealth < .seconds(15))
            for connection in idle + tricklingHeads + tricklingBodies {
                #expect(connection.isClosedByPeer())
            }
        }
    }

    @Test func theLimitsAreSettings() async throws {
        let command = try await FleetConfiguration.load(
            arguments: ["--idle-timeout", "5", "--body-timeout=7"],
            environment: ["FLEETD_MAX_CONNECTIONS": "64", "FLEETD_DATA_DIR": "/tmp/unused"]
        )
        guard case .run(let configuration) = command else {
            Issue.record("expected a run command, got \(command)")
            return
        }
        #expect(configuration.idleTimeoutSeconds == 5)
        #expect(configuration.bodyTimeoutSeconds == 7)
        #expect(configuration.maximumConnections == 64)
        let defaults = FleetConfiguration(environment: [:])
        #expect(defaults.idleTimeoutSeconds == 30)
        #expect(defaults.bodyTimeoutSeconds == 30)
        #expect(defaults.maximumConnections == 512)
        await #expect(throws: (any Error).self) {
            _ = try await FleetConfiguration.load(arguments: ["--idle-timeout", "0"], environment: [:])
        }
    }
}
