import ArgumentParser
import FleetTestSupport
import Foundation
import RequestKitTesting
import Testing

@testable import FleetCLI

/// `fleet --trace` with a collector that is not there, or that never answers: the command's own outcome either way.
struct FleetTraceTests {
    @Test(
        "--trace with no collector listening still runs the command and exits with its code",
        .timeLimit(.minutes(1))
    )
    func aMissingCollectorDoesNotFailTheCommand() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let port = try await closedPort()
        let outcome = await harness.run(
            ["env", "list", "--trace"],
            environment: ["FLEET_TRACE_ENDPOINT": "http://127.0.0.1:\(port)"]
        )
        #expect(outcome.code == 0, "\(outcome.error)")
        #expect(outcome.output.contains("local"))
    }

    /// A collector that takes the spans and never answers would hold the command for good without the export's own
    /// time limit; the test's limit turns such a hang into a failure instead of a stuck run.
    @Test(
        "--trace with a collector that never answers gives up on the export and exits with the command's code",
        .timeLimit(.minutes(1))
    )
    func aSilentCollectorDoesNotHoldTheCommand() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        try await TestServer.withTestServer(handler: { _ in
            TestResponse(
                status: 200,
                headers: [("Content-Type", "application/x-protobuf")],
                body: .stall(prefix: Data(), declaredLength: 1_000)
            )
        }) { collector in
            let outcome = await harness.run(
                ["env", "list", "--trace"],
                environment: ["FLEET_TRACE_ENDPOINT": "http://127.0.0.1:\(collector.port)"]
            )
            #expect(outcome.code == 0, "\(outcome.error)")
            #expect(outcome.output.contains("local"))
            // The exporter did send the command's spans; only the answer never came.
            let exports = collector.receivedRequests.filter { $0.method == "POST" && $0.path == "/v1/traces" }
            #expect(!exports.isEmpty, "the collector received \(collector.receivedRequests.map(\.target))")
        }
    }

    @Test("the command's span is named by its words, never by an argument")
    func theCommandPathHoldsNoArgument() throws {
        let arguments = ["vehicles", "get", "3f2a", "--token", "secret", "--trace"]
        let command = try #require(try FleetCommand.parseAsRoot(arguments) as? any FleetRunnable)
        #expect(Fleet.commandPath(of: command, in: arguments) == "fleet vehicles get")
    }
}
