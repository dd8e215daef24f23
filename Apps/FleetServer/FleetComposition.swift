import FleetModels
import Foundation
public import LocatorKit
public import Logging
import Metrics
public import Prometheus
import StoreKitLite
import StoreKitLiteSQLite

/// The daemon's composition root: every service `fleetd` is made of, registered once in a frozen LocatorKit
/// container. Nothing below it looks services up; each gets what it needs through its initializer.
///
/// | service | lifetime | made from |
/// |---|---|---|
/// | ``FleetConfiguration``, `Logger`, `PrometheusCollectorRegistry` | instance | the caller |
/// | ``FleetMetrics`` | lazy | the registry, through `PrometheusMetricsFactory` |
/// | `PersistenceService` | lazy | a `SQLiteBackend` at ``FleetConfiguration/databasePath`` |
/// | ``VehicleRepository`` | lazy | the persistence service |
/// | ``FleetService`` | lazy | the repository and the maintenance policy |
/// | ``ReadResponseCache`` | lazy | the fleet service and ``FleetConfiguration/readCacheBytes`` |
/// | ``FleetHTTPSettings`` | lazy | the configuration and the token |
public enum FleetComposition {
    /// A frozen container for `configuration`. `token` is the bearer token writes need (see
    /// ``FleetDaemon/resolveToken(_:logger:)``).
    public static func makeLocator(
        configuration: FleetConfiguration,
        token: String,
        logger: Logger,
        registry: PrometheusCollectorRegistry
    ) throws(LocatorError) -> Locator {
        let locator = Locator(name: "fleetd")
        try locator.register(configuration)
        try locator.register(logger)
        try locator.register(registry)
        try locator.register(FleetMetrics.self) { resolver in
            FleetMetrics(
                factory: PrometheusMetricsFactory(registry: try resolver.resolve(PrometheusCollectorRegistry.self))
            )
        }
        try locator.register(PersistenceService.self) { resolver in
            let configuration = try resolver.resolve(FleetConfiguration.self)
            let backend = SQLiteBackend(
                path: configuration.databasePath,
                execution: configuration.storeExecution == .suspending ? .suspending : .callingThread,
                durability: configuration.durability == .full ? .full : .normal,
                logger: try resolver.resolve(Logger.self)
            )
            return PersistenceService(model: StoreVehicleRepository.storeModel, backend: backend)
        }
        try locator.register((any VehicleRepository).self) { resolver in
            StoreVehicleRepository(store: try resolver.resolve(PersistenceService.self))
        }
        try locator.register(FleetService.self) { resolver in
            let configuration = try resolver.resolve(FleetConfiguration.self)
            return FleetService(
                repository: try resolver.resolve((any VehicleRepository).self),
                policy: MaintenancePolicy(intervalMonths: configuration.maintenanceIntervalMonths)
            )
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
