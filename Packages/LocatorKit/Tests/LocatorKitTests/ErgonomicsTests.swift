import LocatorKit
import Testing

struct StorageModule: LocatorModule {
    func register(in locator: Locator) throws(LocatorError) {
        try locator.register((any Database).self) { _ in MemoryDatabase() }
        try locator.register(FixedClock(now: 3), as: (any Clock).self)
    }
}

struct RepositoryModule: LocatorModule {
    func register(in locator: Locator) throws(LocatorError) {
        try locator.register(Repository.self, lifetime: .transient) { r in
            Repository(database: try r.resolve(), clock: try r.resolve())
        }
    }
}

struct ErgonomicsTests {
    @Test func resolveAllReturnsEveryNamedRegistrationNearestFirst() throws {
        let root = Locator()
        try root.register(MemoryDatabase(label: "a"), as: (any Database).self, name: "a")
        try root.register(MemoryDatabase(label: "b"), as: (any Database).self, name: "b")
        let child = root.child()
        try child.register(MemoryDatabase(label: "b2"), as: (any Database).self, name: "b")
        try child.register(MemoryDatabase(label: "c"), as: (any Database).self)
        #expect(try child.resolveAll((any Database).self).map(\.label) == ["b2", "c", "a"])
        #expect(try root.resolveAll((any Database).self).map(\.label) == ["a", "b"])
    }

    @Test func modulesGroupRegistrations() throws {
        let locator = Locator()
        try locator.install(StorageModule(), RepositoryModule())
        #expect(try locator.resolve(Repository.self).clock.now == 3)
    }

    @Test func dumpListsRegistrationsWithLifetimesScopesAndState() throws {
        let root = Locator(name: "root")
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        let app = root.child(name: "app")
        try app.register(ServiceC.self) { _ in ServiceC() }
        try app.register(MemoryDatabase.self, name: "session", lifetime: .scoped("session")) { _ in MemoryDatabase() }
        try app.register(FixedClock.self) { (_, now: Int) in FixedClock(now: now) }
        _ = try app.resolve(ServiceC.self) as ServiceC
        app.freeze()
        #expect(
            app.dump() == """
                Locator "app" (frozen)
                  ServiceC: lazy, created
                  MemoryDatabase (name: "session"): scoped(session), not created
                  FixedClock: transient with parameters (Int)
                  parent Locator "root"
                    Clock: instance, created
                """
        )
        #expect(app.description == "Locator(\"app\", 3 registrations, frozen)")
    }

    @Test func validateTriesEveryRegistrationAndReportsAllFailures() async throws {
        let locator = Locator()
        try locator.install(StorageModule(), RepositoryModule())
        try await locator.validate()
        try locator.register(ServiceA.self) { r in ServiceA(b: try r.resolve(ServiceB.self)) }
        try locator.register(ServiceC.self) { _ async throws -> ServiceC in throw Failure() }
        do {
            try await locator.validate()
            Issue.record("expected failures")
        } catch {
            #expect(error.code == .validationFailed)
            #expect(error.failures.count == 2)
            #expect(error.failures.map(\.path) == [["ServiceA"], ["ServiceC"]])
            #expect(error.description.hasPrefix("LocatorError.validationFailed: 2 registration(s) failed"))
        }
    }

    @Test func aServiceCanBeLookedUpByTheNameOfItsType() throws {
        let locator = Locator()
        try locator.register(FixedClock(now: 8), as: (any Clock).self)
        try locator.register(MemoryDatabase(label: "r"), as: MemoryDatabase.self, name: "replica")
        let clock = try locator.resolve(typeNamed: "Clock")
        #expect((clock as? any Clock)?.now == 8)
        let qualified = try locator.resolve(typeNamed: "LocatorKitTests.MemoryDatabase", name: "replica")
        #expect((qualified as? MemoryDatabase)?.label == "r")
        let error = #expect(throws: LocatorError.self) { try locator.resolve(typeNamed: "Clok") }
        #expect(error?.code == .notRegistered)
        #expect(error?.candidates == ["Clock"])
    }
}
