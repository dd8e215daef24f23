import FleetModels
import Foundation
public import Hummingbird
import HummingbirdCore
public import LocatorKit
public import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import ServiceModules
import StoreKitLite
import UnixSignals

/// `fleetd`: the configuration, the composition root, the HTTP application and the store, run as one service group
/// that shuts down gracefully on SIGTERM and SIGINT (stop accepting, finish in-flight requests, then close the
/// store).
public struct FleetDaemon: Sendable {
    /// The configuration it runs with.
    public let configuration: FleetConfiguration
    /// The composition root.
    public let locator: Locator
    /// The operations the router serves.
    public let operations: [FleetOperation]
    private let responder: RouterResponder<BasicRequestContext>
    private let logger: Logger

    /// A daemon for `configuration`. Opening the store starts now, in the background; `/health` reports it.
    ///
    /// - Parameters:
    ///   - token: the bearer token; `nil` reads or generates the token file.
    public init(configuration: FleetConfiguration, logger: Logger, token: String? = nil) throws {
        self.configuration = configuration
        self.logger = logger
        try Self.prepareDataDirectory(configuration.dataDirectory)
        let token = try token ?? Self.resolveToken(configuration, logger: logger)
        let registry = PrometheusCollectorRegistry()
        locator = try FleetComposition.makeLocator(
            configuration: configuration,
            token: token,
            logger: logger,
            registry: registry
        )
        let metrics = try locator.resolve(FleetMetrics.self)
        let cache = configuration.readCacheBytes > 0 ? try locator.resolve(ReadResponseCache.self) : nil
        let store = try locator.resolve(FleetStore.self)
        let built = FleetRoutes.makeRouter(
            service: try locator.resolve(FleetService.self),
            settings: try locator.resolve(FleetHTTPSettings.self),
            metrics: metrics,
            cache: cache,
            store: store,
            accessLog: logger,
            metricsText: {
                if let cache { metrics.publish(cache) }
                metrics.publish(store)
                return FleetMetrics.withHelp(registry.emitToString())
            }
        )
        responder = built.router.buildResponder()
        operations = built.operations
    }

    /// The configured token, or the one in the token file, or a new random one written to the token file (mode
    /// 0600) so that a `fleet` on the same machine can read it.
    public static func resolveToken(_ configuration: FleetConfiguration, logger: Logger) throws -> String {
        if let token = configuration.token { return token }
        let path = configuration.tokenFilePath
        if let data = FileManager.default.contents(atPath: path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if token.count >= 8 { return token }
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
        let created = FileManager.default.createFile(
            atPath: path,
            contents: Data((token + "\n").utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard created else {
            throw ConfigurationError("cannot write the token file \(path); give a token with --token or FLEETD_TOKEN")
        }
        logger.notice("generated a bearer token for writes", metadata: ["fleetd.token_file": "\(path)"])
        return token
    }

    /// The Hummingbird application; `onServerRunning` learns the bound port (useful with port 0).
    public func makeApplication(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let bodyTimeout = TimeAmount.seconds(Int64(configuration.bodyTimeoutSeconds))
        let idleTimeout = configuration.idleTimeoutSeconds
        // Hummingbird's own entries below notice repeat fleetd's (its prose "Server started and listening on …"
        // beside fleetd's `listening` with the address as a field; requests, which the access log covers).
        var frameworkLogger = logger
        frameworkLogger.logLevel = max(logger.logLevel, .notice)
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                FleetHTTP1Channel(
                    base: HTTP1Channel(
                        responder: responder,
                        configuration: HTTP1Channel.Configuration(idleTimeout: .seconds(Int64(idleTimeout)))
                    ),
                    bodyTimeout: bodyTimeout
                )
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "fleetd",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)
            ),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: frameworkLogger
        )
    }

    /// Runs until SIGTERM or SIGINT (or cancellation), then stops accepting, finishes in-flight requests and
    /// closes the store.
    ///
    /// - Throws: ``FleetError`` when the store cannot open (corrupt file, newer schema, unwritable directory):
    ///   the daemon then never listens.
    ///   ``FleetError`` too when another daemon runs on the same SQLite database: each daemon holds an exclusive
    ///   lock on `<database>.lock` while it runs, because its ``ReadResponseCache`` is exact only while it is the
    ///   only writer. Daemons sharing a PostgreSQL database take no lock: each follows the others' writes through
    ///   the store's change feed.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let lock = configuration.isPostgres ? nil : try DatabaseLock(path: configuration.databasePath + ".lock")
        defer { lock?.release() }
        let fleet = try await locator.resolve(FleetService.self)
        try await fleet.waitUntilReady()
        // Shut down in reverse order: the server first (finishing the requests in flight), then the change feed,
        // then the store and what else the modules opened.
        let modules = try await locator.resolve(ModuleLifecycles.self).services.map {
            ServiceGroupConfiguration.ServiceConfiguration(service: $0)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: modules + [
                    .init(service: FeedShutdownService(service: fleet)),
                    .init(service: makeApplication(onServerRunning: onServerRunning)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

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
        LoggingSystem.bootstrap { label in
            StructuredLogHandler(label: label, level: configuration.logLevel, format: configuration.logFormat)
        }
        let logger = Logger(label: "fleetd")
        do {
            let daemon = try FleetDaemon(configuration: configuration, logger: logger)
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

/// Stops following the other daemons' writes on graceful shutdown, after the server (listed after it in the service
/// group) has finished its in-flight requests and before the store (listed before it) closes.
struct FeedShutdownService: Service {
    let service: FleetService

    func run() async throws {
        try? await gracefulShutdown()
        service.stopFollowing()
    }
}

/// An exclusive `flock` on a file beside the database, held while a daemon runs; the kernel drops it when the
/// process ends, however it ends.
final class DatabaseLock {
    private var descriptor: Int32

    init(path: String) throws(FleetError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FleetError(.unavailable, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason =
                errno == EWOULDBLOCK
                ? "another fleetd is running on this database; stop it, or give this one another data directory with "
                    + "--data-dir (or FLEETD_DATA_DIR)"
                : String(cString: strerror(errno))
            close(descriptor)
            throw FleetError(.unavailable, "cannot lock \(path): \(reason)")
        }
        self.descriptor = descriptor
    }

    /// Unlocks; a second call does nothing.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
