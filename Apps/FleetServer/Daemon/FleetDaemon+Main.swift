import FleetTelemetry
import Foundation
import Logging
import NIOCore
import Tracing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FleetDaemon {
    /// `fleetd`'s entry point: parses the configuration, checks that the port is free and the data directory
    /// usable (before creating anything), sets up logging and metrics, runs. Returns the exit code: 2 for a bad
    /// configuration, 1 when the port, the data directory or the store fails, 0 after a clean shutdown.
    ///
    /// - Parameters:
    ///   - errors: where the one-line messages of a failed start go (standard error unless told).
    public static func main(
        arguments: [String],
        environment: [String: String],
        errors: LogSink = .standardError
    ) async -> Int32 {
        let command: FleetConfiguration.Command
        do {
            command = try await FleetConfiguration.load(arguments: arguments, environment: environment)
        } catch {
            errors.write("fleetd: \(error)\n")
            return 2
        }
        guard case .run(let configuration) = command else {
            print(FleetConfiguration.usage)
            return 0
        }
        do {
            try checkStartup(configuration)
        } catch {
            errors.write("fleetd: \(error)\n")
            return 1
        }
        // Tracing is installed first, once, so that the store and the routes made below find the tracer.
        let exporter: TraceExport.Exporter?
        if let endpoint = configuration.traceEndpoint {
            let export = TraceExport(
                endpoint: endpoint,
                serviceName: configuration.traceServiceName,
                samplingRatio: configuration.traceSamplingRatio
            )
            let diagnostics = Logger(label: "fleetd.tracing") { label in
                StructuredLogHandler(label: label, level: .warning, format: configuration.logFormat)
            }
            do {
                exporter = try export.makeExporter(diagnostics: diagnostics)
            } catch {
                errors.write("fleetd: cannot export traces to \(endpoint): \(error)\n")
                return 2
            }
            if let exporter { InstrumentationSystem.bootstrap(exporter.tracer) }
        } else {
            exporter = nil
        }
        LoggingSystem.bootstrap(
            { label, provider in
                StructuredLogHandler(
                    label: label,
                    level: configuration.logLevel,
                    format: configuration.logFormat,
                    metadataProvider: provider
                )
            },
            metadataProvider: exporter?.loggingMetadata
        )
        let logger = Logger(label: "fleetd")
        do {
            let daemon = try FleetDaemon(configuration: configuration, logger: logger, tracing: exporter?.service)
            // The address comes with `listening`, once bound (with --port 0 the system picks the port).
            // Never the database URL itself: it may carry the password.
            logger.info("starting", metadata: ["fleetd.database": "\(configuration.databaseForDisplay)"])
            try await daemon.run { port in
                logger.notice("listening", metadata: ["fleetd.address": "\(configuration.host):\(port)"])
            }
            logger.info("stopped")
            return 0
        } catch {
            // Another process may take the port between the check and the bind.
            if let failure = error as? IOError, failure.errnoCode == EADDRINUSE || failure.errnoCode == EACCES {
                let address = "\(configuration.host):\(configuration.port)"
                errors.write("fleetd: \(portError(address: address, errno: failure.errnoCode))\n")
                return 1
            }
            // One line, as for the failures found before the start; not a log entry as well.
            errors.write("fleetd: \(startFailure(error, configuration: configuration))\n")
            return 1
        }
    }
}

extension FleetDaemon {
    /// One line for a start that failed after the checks: the database could not be opened (with the likely cause
    /// and what to check), another fleetd holds it, or the error's own description.
    static func startFailure(_ error: any Error, configuration: FleetConfiguration) -> String {
        let text = "\(error)"
        let database = configuration.databaseForDisplay
        guard let failure = error as? FleetError, failure.code == .unavailable else { return firstLine(of: text) }
        if text.contains("another fleetd is running") { return firstLine(of: failure.detail) }
        guard configuration.isPostgres else {
            return "cannot open the database \(database): \(firstLine(of: failure.detail))"
        }
        let cause: String
        if text.contains("Connection refused") || text.contains("errno: 111") {
            cause = "nothing accepts connections at that address; start the server or correct the host and port"
        } else if text.contains("28P01") || text.contains("28000") {
            cause = "the server refused the user or the password"
        } else if text.contains("3D000") {
            cause = "the server has no such database; create it or correct its name"
        } else if text.contains("timed out") || text.contains("timeout") {
            cause = "the server did not answer in time"
        } else {
            cause = firstLine(of: failure.detail)
        }
        return "cannot open the database \(database): \(cause); check --database (or FLEETD_DATABASE)"
    }

    private static func firstLine(of text: String) -> String {
        let line = text.prefix { $0 != "\n" }
        return line.count > 300 ? line.prefix(300) + "…" : String(line)
    }
}
