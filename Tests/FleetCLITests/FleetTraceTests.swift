import ArgumentParser
import FleetTestSupport
import Foundation
import Testing

@testable import FleetCLI

/// `fleet --trace` with a collector that is not there: the command's own outcome, with at most a short wait at its end.
struct FleetTraceTests {
    @Test("--trace with no collector listening still runs the command and exits with its code")
    func aMissingCollectorDoesNotFailOrHoldTheCommand() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let port = try await closedPort()
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = await harness.run(
            ["env", "list", "--trace"],
            environment: ["FLEET_TRACE_ENDPOINT": "http://127.0.0.1:\(port)"]
        )
        let waited = started.duration(to: clock.now)
        #expect(outcome.code == 0, "\(outcome.error)")
        #expect(outcome.output.contains("local"))
        // The export gives up after a second; the bound is generous for a loaded machine.
        #expect(waited < .seconds(8), "the command waited \(waited) for a collector that is not there")
    }

    @Test("the command's span is named by its words, never by an argument")
    func theCommandPathHoldsNoArgument() throws {
        let arguments = ["vehicles", "get", "3f2a", "--token", "secret", "--trace"]
        let command = try #require(try FleetCommand.parseAsRoot(arguments) as? any FleetRunnable)
        #expect(Fleet.commandPath(of: command, in: arguments) == "fleet vehicles get")
    }
}
