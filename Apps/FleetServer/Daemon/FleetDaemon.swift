import FleetModels
import Foundation
public import Hummingbird
import HummingbirdCore
public import LocatorKit
public import Logging
import Metrics
import NIOCore
import Prometheus
public import ServiceLifecycle
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
    /// Exports the spans, shut down after everything else so that it sends the last ones; `nil` without tracing.
    private let tracing: (any Service)?

    /// A daemon for `configuration`. Opening the store starts now, in the background; `/health` reports it.
    ///
    /// - Parameters:
    ///   - token: the bearer token; `nil` reads or generates the token file.
    ///   - tracing: the service exporting the spans of the tracer the process installed, run first and stopped
    ///     last; with one, each request gets a span (Hummingbird's tracing middleware) that the store's spans are
    ///     children of.
    public init(
        configuration: FleetConfiguration,
        logger: Logger,
        token: String? = nil,
        tracing: (any Service)? = nil
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.tracing = tracing
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
            traced: tracing != nil,
            metricsText: {
                if let cache { metrics.publish(cache) }
                metrics.publish(store)
                return FleetMetrics.withHelp(registry.emitToString())
            }
        )
        responder = built.router.buildResponder()
        operations = built.operations
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
                services: (tracing.map { [.init(service: $0)] } ?? []) + modules + [
                    .init(service: FeedShutdownService(service: fleet)),
                    .init(service: makeApplication(onServerRunning: onServerRunning)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }
}
