import LocatorKit
import Testing

struct LifetimeTests {
    @Test func anInstanceIsHeldStronglyAndReturnedAsIs() throws {
        let locator = Locator()
        var database: MemoryDatabase? = MemoryDatabase()
        weak let weakDatabase = database
        try locator.register(database!, as: (any Database).self)
        database = nil
        let resolved = try locator.resolve((any Database).self)
        #expect(resolved === weakDatabase)
    }

    @Test func anEagerFactoryRunsAtRegistration() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self, lifetime: .eager) { _ in
            counter.increment()
            return ServiceC()
        }
        #expect(counter.count == 1)
        let first = try locator.resolve(ServiceC.self)
        let second = try locator.resolve(ServiceC.self)
        #expect(first === second)
        #expect(counter.count == 1)
    }

    @Test func anEagerFailureIsRethrownByEveryResolveWithoutRunningAgain() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self, lifetime: .eager) { _ -> ServiceC in
            counter.increment()
            throw Failure()
        }
        for _ in 0..<3 {
            let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.underlying as? Failure == Failure())
        }
        #expect(counter.count == 1)
    }

    @Test func aLazyFactoryRunsOnFirstResolveOnly() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ in
            counter.increment()
            return ServiceC()
        }
        #expect(counter.count == 0)
        let first = try locator.resolve(ServiceC.self)
        let second = try locator.resolve(ServiceC.self)
        #expect(first === second)
        #expect(counter.count == 1)
    }

    @Test func aLazyFailureIsRetriedOnTheNextResolve() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ in
            if counter.increment() == 1 { throw Failure() }
            return ServiceC()
        }
        #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self) }
        let service = try locator.resolve(ServiceC.self)
        #expect(try locator.resolve(ServiceC.self) === service)
        #expect(counter.count == 2)
    }

    @Test func aTransientFactoryMakesANewInstanceEveryResolve() throws {
        let locator = Locator()
        try locator.register(ServiceC.self, lifetime: .transient) { _ in ServiceC() }
        #expect(try locator.resolve(ServiceC.self) !== locator.resolve(ServiceC.self))
    }

    @Test func aWeakFactoryIsSharedWhileHeldAndRecreatedAfterRelease() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register((any Database).self, lifetime: .weak) { _ in
            MemoryDatabase(label: "db\(counter.increment())")
        }
        var held: (any Database)? = try locator.resolve((any Database).self)
        #expect(try locator.resolve((any Database).self) === held)
        #expect(held?.label == "db1")
        held = nil
        let again = try locator.resolve((any Database).self)
        #expect(again.label == "db2")
    }

    @Test func aWeakLifetimeRejectsValueTypes() throws {
        let locator = Locator()
        try locator.register((any Clock).self, lifetime: .weak) { _ in FixedClock(now: 1) }
        let error = #expect(throws: LocatorError.self) { try locator.resolve((any Clock).self) }
        #expect(error?.code == .typeMismatch)
    }

    @Test func aWeaklyRegisteredInstanceIsNeverKeptAliveAndReportsReleased() throws {
        let locator = Locator()
        var database: MemoryDatabase? = MemoryDatabase()
        try locator.register(weak: database!, as: (any Database).self)
        #expect(try locator.resolve((any Database).self).label == "memory")
        weak let observer = database
        database = nil
        #expect(observer == nil)
        let error = #expect(throws: LocatorError.self) { try locator.resolve((any Database).self) }
        #expect(error?.code == .released)
    }

    @Test func aWeakHandleNeverKeepsItsTargetAliveAndThrowsAfterRelease() throws {
        let locator = Locator()
        var database: MemoryDatabase? = MemoryDatabase(label: "target")
        try locator.register(weakHandleTo: database!, as: (any Database).self)
        let handle = try locator.resolve(WeakHandle<any Database>.self)
        #expect(handle.isAlive)
        #expect(try handle.get().label == "target")
        database = nil
        #expect(!handle.isAlive)
        #expect(handle.target == nil)
        let error = #expect(throws: LocatorError.self) { try handle.get() }
        #expect(error?.code == .released)
    }

    @Test func aGraphInstanceIsSharedWithinOneRootResolveOnly() throws {
        let locator = Locator()
        try locator.register((any Database).self, lifetime: .graph) { _ in MemoryDatabase() }
        try locator.register((any Clock).self, instance: FixedClock(now: 0))
        try locator.register(Repository.self, lifetime: .transient) { r in
            Repository(database: try r.resolve(), clock: try r.resolve())
        }
        try locator.register([Repository].self, lifetime: .transient) { r in
            [try r.resolve(Repository.self), try r.resolve(Repository.self)]
        }
        let pair = try locator.resolve([Repository].self)
        #expect(pair[0] !== pair[1])
        #expect(pair[0].database === pair[1].database)
        let other = try locator.resolve([Repository].self)
        #expect(other[0].database !== pair[0].database)
    }

    @Test func aScopedInstanceLivesUntilItsScopeIsReset() throws {
        let locator = Locator()
        try locator.register(ServiceC.self, lifetime: .scoped("session")) { _ in ServiceC() }
        try locator.register(MemoryDatabase.self, lifetime: .scoped("request")) { _ in MemoryDatabase() }
        let first = try locator.resolve(ServiceC.self)
        let database = try locator.resolve(MemoryDatabase.self)
        #expect(try locator.resolve(ServiceC.self) === first)
        locator.resetScope("session")
        #expect(try locator.resolve(ServiceC.self) !== first)
        #expect(try locator.resolve(MemoryDatabase.self) === database)
    }

    @Test func namesAndTypedKeysKeepSeveralRegistrationsOfOneType() throws {
        let locator = Locator()
        let primary = LocatorKey<any Database>("primary")
        try locator.register(MemoryDatabase(label: "default"), as: (any Database).self)
        try locator.register(MemoryDatabase(label: "replica"), as: (any Database).self, name: "replica")
        try locator.register(MemoryDatabase(label: "primary"), for: primary)
        #expect(try locator.resolve((any Database).self).label == "default")
        #expect(try locator.resolve((any Database).self, name: "replica").label == "replica")
        #expect(try locator.resolve(primary).label == "primary")
    }
}

extension Locator {
    /// Test helper spelling for registering a value under a protocol type.
    func register<Service: Sendable>(_ type: Service.Type, instance: Service) throws(LocatorError) {
        try register(instance, as: type)
    }
}
