import FleetModels
import Foundation
public import LocatorKit
public import Logging
import Metrics
public import Prometheus
import ServiceModules
public import StoreKitLite
public import StoreKitLitePostgres
import StoreKitLiteSQLite

/// The daemon's composition root: every service `fleetd` is made of, registered once in a frozen LocatorKit
/// container. Nothing below it looks services up; each gets what it needs through its initializer.
///
/// | service | lifetime | made from |
/// |---|---|---|
/// | ``FleetConfiguration``, `Logger`, `PrometheusCollectorRegistry` | instance | the caller |
/// | ``FleetMetrics`` | lazy | the registry, through `PrometheusMetricsFactory` |
/// | `StoreStack`, `PersistenceService`, `ModuleLifecycles` | lazy | a `StoreModule` for ``FleetConfiguration/databasePath``: a SQLite file, or PostgreSQL for a `postgres://` URL |
/// | ``FleetStore`` | lazy | the store stack |
/// | ``VehicleRepository`` | lazy | the persistence service |
/// | ``FleetService`` | lazy | the repository and the maintenance policy |
/// | ``ReadResponseCache`` | lazy | the fleet service and ``FleetConfiguration/readCacheBytes`` |
/// | ``FleetHTTPSettings`` | lazy | the configuration and the token |
public enum FleetComposition {
    /// A frozen container for `configuration`. `token` is the bearer token writes need (see
    /// ``FleetDaemon/resolveToken(_:logger:)``).
    ///
    /// - Throws: `ModuleConfigurationError` listing what is wrong with the store's settings (nothing is opened
    ///   then); `LocatorError` for a registration that fails.
    public static func makeLocator(
        configuration: FleetConfiguration,
        token: String,
        logger: Logger,
        registry: PrometheusCollectorRegistry
    ) throws -> Locator {
        let locator = Locator(name: "fleetd")
        try locator.register(configuration)
        try locator.register(logger)
        try locator.register(registry)
        try locator.register(FleetMetrics.self) { resolver in
            FleetMetrics(
                factory: PrometheusMetricsFactory(registry: try resolver.resolve(PrometheusCollectorRegistry.self))
            )
        }
        try locator.installChecked([
            StoreModule(
                url: configuration.databasePath,
                model: StoreVehicleRepository.storeModel,
                sqlite: StoreModule.SQLiteOptions(
                    execution: configuration.storeExecution == .suspending ? .suspending : .callingThread,
                    durability: configuration.durability == .full ? .full : .normal
                ),
                logger: logger
            )
        ])
        let schema =
            configuration.isPostgres
            ? configuration.database.flatMap { try? PostgresBackend.Configuration(url: $0).schema } : nil
        try locator.register(FleetStore.self) { resolver in
            FleetStore(try resolver.resolve(StoreStack.self), schema: schema)
        }
        try locator.register((any VehicleRepository).self) { resolver in
            StoreVehicleRepository(store: try resolver.resolve(PersistenceService.self))
        }
        try locator.register(FleetService.self) { resolver in
            let configuration = try resolver.resolve(FleetConfiguration.self)
            let store = try resolver.resolve(FleetStore.self)
            let service = FleetService(
                repository: try resolver.resolve((any VehicleRepository).self),
                policy: MaintenancePolicy(intervalMonths: configuration.maintenanceIntervalMonths),
                followsOtherWriters: { store.followsOtherWriters }
            )
            // Subscribed as the store starts opening, so that no other daemon's write is missed from then on.
            if store.isShared { service.follow(store.backend.committedChanges()) }
            return service
        }
        try locator.register(ReadResponseCache.self) { resolver in
            ReadResponseCache(
                service: try resolver.resolve(FleetService.self),
                capacityBytes: try resolver.resolve(FleetConfiguration.self).readCacheBytes
            )
        }
        try locator.register(FleetHTTPSettings.self) { resolver in
            FleetHTTPSettings(
                token: token,
                maximumBodyBytes: try resolver.resolve(FleetConfiguration.self).maximumBodyBytes
            )
        }
        locator.freeze()
        return locator
    }
}

/// The daemon's store: its backend, and what `/health` and the read cache need to know of it.
public struct FleetStore: Sendable {
    /// The backend the persistence service runs on.
    public let backend: any StoreBackend
    /// `sqlite` or `postgresql`.
    public let kind: String
    /// The PostgreSQL schema holding the store's tables; `nil` for SQLite.
    public let schema: String?
    private let feedStatus: @Sendable () -> ChangeFeedStatus?
    private let poolStatus: @Sendable () -> PostgresPoolStatus?

    init(_ stack: StoreStack, schema: String?) {
        backend = stack.backend
        kind = stack.kind.rawValue
        self.schema = schema
        if stack.kind == .postgresql {
            feedStatus = { stack.changeFeedStatus }
        } else {
            feedStatus = { nil }
        }
        poolStatus = { stack.postgresPoolStatus }
    }

    /// How the PostgreSQL backend uses its connection pool; `nil` for SQLite.
    public var postgresPoolStatus: PostgresPoolStatus? { poolStatus() }

    /// Whether other daemons may write the store (PostgreSQL): their writes then reach this one through the change
    /// feed.
    public var isShared: Bool { feedStatus() != nil }

    /// The change feed's state; `nil` for a store this daemon alone writes.
    public var changeFeedStatus: ChangeFeedStatus? { feedStatus() }

    /// Whether every other daemon's write has been seen: always for SQLite, while the feed is connected and caught
    /// up for PostgreSQL.
    public var followsOtherWriters: Bool { feedStatus()?.isConnected ?? true }
}
