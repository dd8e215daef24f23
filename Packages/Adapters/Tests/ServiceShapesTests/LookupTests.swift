import LocatorKit
import ModelKitTesting
import ServiceShapes
import Testing

protocol VehicleStore: Sendable {
    var kind: String { get }
}

final class SQLiteVehicleStore: VehicleStore {
    let kind = "sqlite"
}

final class MemoryVehicleStore: VehicleStore {
    let kind = "memory"
}

final class PostgresVehicleStore: VehicleStore {
    let kind = "postgres"
}

protocol Clock: Sendable {}

struct ProtocolLookupTests {
    @Test func aServiceRegisteredForAProtocolIsTheSharedInstanceEveryLookupReturns() throws {
        let locator = Locator()
        let store = SQLiteVehicleStore()
        try locator.register(store, for: (any VehicleStore).self)
        let first = try locator.service(for: (any VehicleStore).self)
        let second = try locator.service(for: (any VehicleStore).self)
        #expect(first as? SQLiteVehicleStore === store)
        #expect(second as? SQLiteVehicleStore === store)
        // The same registration answers LocatorKit's own resolve, and a child locator's lookup.
        #expect(try locator.resolve((any VehicleStore).self) as? SQLiteVehicleStore === store)
        #expect(try locator.child().service(for: (any VehicleStore).self) as? SQLiteVehicleStore === store)
    }

    @Test func aLazyRegistrationMakesOneInstanceOnTheFirstLookup() async throws {
        let locator = Locator()
        let made = LockedValue(0)
        try locator.register(for: (any VehicleStore).self) { _ in
            made.update { $0 += 1 }
            return MemoryVehicleStore()
        }
        #expect(made.value == 0)
        let lookUp = { () throws -> any VehicleStore in try locator.service(for: (any VehicleStore).self) }
        let first = try lookUp()
        let second = try await locator.service(for: (any VehicleStore).self)
        #expect(made.value == 1)
        #expect((first as? MemoryVehicleStore) === (second as? MemoryVehicleStore))
    }

    @Test func aWeakRegistrationDoesNotKeepTheServiceAlive() throws {
        let locator = Locator()
        var store: (any VehicleStore)? = SQLiteVehicleStore()
        try locator.register(weak: try #require(store), for: (any VehicleStore).self)
        #expect(try locator.service(for: (any VehicleStore).self).kind == "sqlite")
        store = nil
        #expect {
            _ = try locator.service(for: (any VehicleStore).self)
        } throws: { error in
            (error as? ServiceLookupError)?.code == .resolutionFailed
        }
    }

    @Test func aMissingProtocolIsATypedErrorWithTheNearestRegistrations() throws {
        let locator = Locator()
        try locator.register(SQLiteVehicleStore(), for: (any VehicleStore).self)
        do {
            _ = try locator.service(for: (any Clock).self)
            Issue.record("an unregistered protocol resolved")
        } catch {
            #expect(error.code == .notRegistered)
            #expect(error.shortDescription == "notRegistered")
            #expect(error.serviceType == "Clock")
            #expect(error.underlying is LocatorError)
            #expect(error.description.hasPrefix("ServiceLookupError.notRegistered: Clock"))
        }
    }

    @Test func aFailingFactoryIsResolutionFailedWithLocatorKitsError() throws {
        struct Unavailable: Error {}
        let locator = Locator()
        try locator.register(for: (any VehicleStore).self, lifetime: .transient) { _ in throw Unavailable() }
        do {
            _ = try locator.service(for: (any VehicleStore).self)
            Issue.record("a failing factory resolved")
        } catch {
            #expect(error.code == .resolutionFailed)
            #expect((error.underlying as? LocatorError)?.code == .factoryFailed)
        }
    }
}

struct ServiceCatalogTests {
    func catalog() throws -> ServiceCatalog<any VehicleStore> {
        let catalog = ServiceCatalog((any VehicleStore).self, locator: Locator())
        try catalog.register("sqlite") { _ in SQLiteVehicleStore() }
        try catalog.register("memory", lifetime: .transient) { _ in MemoryVehicleStore() }
        try catalog.register(PostgresVehicleStore(), named: "postgres")
        return catalog
    }

    @Test(arguments: ["sqlite", "memory", "postgres"])
    func aNameFromConfigurationPicksItsImplementation(name: String) async throws {
        let catalog = try catalog()
        let lookUp = { () throws -> any VehicleStore in try catalog.service(named: name) }
        #expect(try lookUp().kind == name)
        #expect(try await catalog.service(named: name).kind == name)
        // The implementations are named registrations of the locator.
        let resolve = { () throws -> any VehicleStore in try catalog.locator.resolve(name: name) }
        #expect(try resolve().kind == name)
    }

    @Test func eachImplementationKeepsItsLifetime() throws {
        let catalog = try catalog()
        let sqlite = try catalog.service(named: "sqlite") as? SQLiteVehicleStore
        #expect(sqlite != nil)
        #expect(sqlite === (try catalog.service(named: "sqlite") as? SQLiteVehicleStore))
        let memory = try catalog.service(named: "memory") as? MemoryVehicleStore
        #expect(memory !== (try catalog.service(named: "memory") as? MemoryVehicleStore))
    }

    @Test(arguments: [
        ("sqlit", ["sqlite", "memory", "postgres"]),
        ("SQLITE", ["sqlite", "memory", "postgres"]),
        ("postgress", ["postgres", "sqlite", "memory"]),
        ("memroy", ["memory", "sqlite", "postgres"]),
    ])
    func anUnknownNameIsATypedErrorNamingTheNearestNames(name: String, nearest: [String]) throws {
        let catalog = try catalog()
        do {
            _ = try catalog.service(named: name)
            Issue.record("the unknown name \(name) resolved")
        } catch {
            #expect(error.code == .unknownName)
            #expect(error.shortDescription == "unknownName")
            #expect(error.name == name)
            #expect(error.serviceType == "VehicleStore")
            #expect(error.suggestions == nearest)
            #expect(error.description.contains("nearest: \(nearest.joined(separator: ", "))"))
            #expect((error.underlying as? LocatorError)?.code == .notRegistered)
        }
    }

    @Test func suggestionsAreAtMostThreeAndNearestFirst() throws {
        let catalog = ServiceCatalog((any VehicleStore).self, locator: Locator())
        for name in ["alpha", "alps", "beta", "gamma", "alpaca"] {
            try catalog.register(name) { _ in MemoryVehicleStore() }
        }
        #expect(catalog.registeredNames == ["alpha", "alps", "beta", "gamma", "alpaca"])
        #expect(catalog.nearestNames(to: "alp") == ["alps", "alpha", "alpaca"])
        #expect(catalog.nearestNames(to: "gama", limit: 1) == ["gamma"])
        // Registering a name again replaces it and keeps one entry.
        try catalog.register("beta") { _ in SQLiteVehicleStore() }
        #expect(catalog.registeredNames.count == 5)
        #expect(try catalog.service(named: "beta").kind == "sqlite")
    }

    @Test func aRegisteredNameWhoseFactoryFailsIsResolutionFailed() throws {
        struct Unavailable: Error {}
        let catalog = ServiceCatalog((any VehicleStore).self, locator: Locator())
        try catalog.register("broken", lifetime: .transient) { _ in throw Unavailable() }
        #expect {
            _ = try catalog.service(named: "broken")
        } throws: { error in
            (error as? ServiceLookupError)?.code == .resolutionFailed
        }
    }

    @Test func anEmptyCatalogSuggestsNothing() throws {
        let catalog = ServiceCatalog((any VehicleStore).self, locator: Locator())
        do {
            _ = try catalog.service(named: "sqlite")
            Issue.record("an empty catalogue resolved")
        } catch {
            #expect(error.code == .unknownName)
            #expect(error.suggestions.isEmpty)
        }
    }
}
