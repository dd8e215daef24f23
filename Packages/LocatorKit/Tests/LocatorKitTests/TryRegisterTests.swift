import LocatorKit
import Testing

struct TryRegisterTests {
    @Test func tryRegisterRunsTheFactoryAtOnceAndKeepsTheInstance() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.tryRegister(ServiceC.self) { _ in
            counter.increment()
            return ServiceC()
        }
        #expect(counter.count == 1)
        #expect(try locator.resolve(ServiceC.self) === locator.resolve(ServiceC.self))
        #expect(counter.count == 1)
        #expect(locator.dump().contains("ServiceC: eager, created"))
    }

    @Test func tryRegisterThrowsTheFactorysErrorAndRegistersNothing() throws {
        let locator = Locator()
        let error = #expect(throws: LocatorError.self) {
            try locator.tryRegister(ServiceC.self) { _ -> ServiceC in throw Failure(reason: "no disk") }
        }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["ServiceC"])
        #expect(error?.underlying as? Failure == Failure(reason: "no disk"))
        #expect(!locator.isRegistered(ServiceC.self))
    }

    @Test func aFailedTryRegisterLeavesTheEarlierRegistrationInPlace() throws {
        let locator = Locator()
        try locator.register(FixedClock(now: 1), as: (any Clock).self)
        #expect(throws: LocatorError.self) {
            try locator.tryRegister((any Clock).self) { _ -> any Clock in throw Failure() }
        }
        #expect(try locator.resolve((any Clock).self).now == 1)
    }

    @Test func aMissingDependencyFailsTheRegistrationWithItsPath() throws {
        let locator = Locator()
        let error = #expect(throws: LocatorError.self) {
            try locator.tryRegister(Repository.self) { r in
                Repository(database: try r.resolve(), clock: try r.resolve())
            }
        }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["Repository"])
        #expect((error?.underlying as? LocatorError)?.code == .notRegistered)
    }

    @Test func tryRegisterWorksForTypedKeysAndAsyncFactories() async throws {
        let locator = Locator()
        let key = LocatorKey<any Clock>("clock")
        try locator.tryRegister(key) { _ in FixedClock(now: 4) }
        #expect(try await locator.resolve(key).now == 4)
        try await locator.tryRegister(MemoryDatabase.self) { _ async in MemoryDatabase(label: "async") }
        #expect(try await locator.resolve(MemoryDatabase.self).label == "async")
        do {
            try await locator.tryRegister(ServiceC.self) { _ async throws -> ServiceC in throw Failure() }
            Issue.record("expected the factory's failure")
        } catch {
            #expect(error.code == .factoryFailed)
            #expect(error.underlying as? Failure == Failure())
        }
        #expect(!locator.isRegistered(ServiceC.self))
    }

    @Test func aFrozenLocatorRefusesTryRegisterWithoutRunningTheFactory() throws {
        let locator = Locator()
        locator.freeze()
        let counter = Counter()
        let error = #expect(throws: LocatorError.self) {
            try locator.tryRegister(ServiceC.self) { _ in
                counter.increment()
                return ServiceC()
            }
        }
        #expect(error?.code == .readOnly)
        #expect(counter.count == 0)
    }
}
