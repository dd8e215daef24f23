// fleet-sync: a third app on the same modules as fleetd and fleet. It copies fleetd's vehicles into a store of its
// own (a SQLite file, or PostgreSQL) once, or every few seconds until SIGTERM. README.md has the flags.
//
//   swift run fleet-sync --fleetd http://127.0.0.1:8080 --store copy.sqlite --once
//   swift run fleet-sync --fleetd http://127.0.0.1:8080 --store postgres://sync@127.0.0.1/fleet --every 30
import ArgumentParser
import Foundation
import LocatorKit
import Logging
import RequestKit
import RequestKitAsyncHTTPClient
import ServiceLifecycle
import ServiceModules
import StoreKitLite
import UnixSignals

/// Parses the flags, wires the modules, then syncs once (`--once`) or runs the job until SIGTERM; returns the exit
/// status.
func main(_ arguments: [String]) async -> Int32 {
    let options: SyncOptions
    do {
        options = try SyncOptions.parse(arguments)
    } catch {
        let usage = SyncOptions.exitCode(for: error) != .success
        let message = SyncOptions.fullMessage(for: error)
        FileHandle(fileDescriptor: usage ? 2 : 1).write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
        return usage ? 2 : 0
    }
    LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
    var logger = Logger(label: "fleet-sync")
    // One run says only what went wrong; the job logs each run.
    logger.logLevel = options.once ? .warning : .info

    let storeModule = StoreModule(url: options.store, model: StoreModel(VehicleCopy.self), logger: logger)
    let problems = options.problems(storeModule: storeModule)
    guard problems.isEmpty else {
        let list =
            problems.count == 1
            ? problems[0]
            : "\(problems.count) problems with the flags:\n" + problems.map { "  - " + $0 }.joined(separator: "\n")
        standardError("fleet-sync: \(list)\n  See 'fleet-sync --help'.")
        return 2
    }
    // fleetd answers a connect at once or not at all: no waiting out a connect timeout per attempt, and three
    // attempts 100 ms and 200 ms apart ride out a restart.
    let connectTimeout = Duration.seconds(2)
    var transport = AsyncHTTPClientTransport.Configuration()
    transport.connectTimeout = connectTimeout
    transport.retriesConnectionEstablishment = false
    var settings = RequestClient.Configuration()
    settings.retryPolicy = RetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(100), jitter: .none)
    let locator = Locator(name: "fleet-sync")
    do {
        try locator.installChecked([
            storeModule,
            RequestClientModule(
                name: "fleetd",
                baseURL: options.fleetdV2,
                configuration: settings,
                transport: transport
            ),
        ])
        let lifecycles = try await locator.resolve(ModuleLifecycles.self)
        let job = SyncJob(
            fleet: try await locator.resolve(RequestClient.self, name: "fleetd"),
            store: {
                let store = try await locator.resolve(PersistenceService.self)
                try await store.waitUntilInitialized()
                return store
            },
            every: .seconds(options.every),
            logger: logger,
            failure: {
                SyncFailure(
                    $0,
                    fleetd: options.fleetd,
                    store: SyncOptions.redacted(options.store),
                    connectTimeout: connectTimeout
                )
            }
        )
        if options.once {
            // fleetd first: with fleetd away nothing is opened, and the store is not touched.
            do {
                let count = try await job.replace(with: job.fetch())
                print("synced \(count) vehicles")
                try await lifecycles.shutdown()
                return 0
            } catch {
                try? await lifecycles.shutdown()
                let failure = job.failure(error)
                standardError("fleet-sync: \(failure.message)")
                return failure.exitCode
            }
        }
        _ = try await job.store()
        let group = ServiceGroup(
            services: lifecycles.services + [job],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        try await group.run()
        return 0
    } catch {
        standardError("fleet-sync: \(error)")
        return 1
    }
}

/// Writes a line to standard error.
func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

exit(await main(Array(CommandLine.arguments.dropFirst())))
