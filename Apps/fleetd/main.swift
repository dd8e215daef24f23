import FleetServer
import Foundation

// fleetd: the fleet API daemon. Everything lives in FleetServer, where tests can reach it.
let status = await FleetDaemon.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment
)
exit(status)
