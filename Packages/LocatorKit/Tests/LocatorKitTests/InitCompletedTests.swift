import LocatorKit
import Synchronization
import Testing

final class Engine: Sendable {
    let gearbox: Gearbox

    init(gearbox: Gearbox) {
        self.gearbox = gearbox
    }
}

final class Gearbox: Sendable {
    private let engineReference = Mutex<WeakEngine>(WeakEngine())

    var engine: Engine? { engineReference.withLock { $0.engine } }

    func attach(_ engine: Engine) {
        engineReference.withLock { $0.engine = engine }
    }
}

struct WeakEngine {
    weak var engine: Engine?
}

struct InitCompletedTests {
    @Test(arguments: [Lifetime.lazy, .transient, .weak, .scoped("s")])
    func aHookClosesALegitimateCycleWithABackReference(gearboxLifetime: Lifetime) throws {
        let locator = Locator()
        try locator.register(Engine.self) { r in Engine(gearbox: try r.resolve()) }
        try locator.register(Gearbox.self, lifetime: gearboxLifetime) { _ in
            Gearbox()
        } initCompleted: { r, gearbox in
            gearbox.attach(try r.resolve(Engine.self))
        }
        let engine = try locator.resolve(Engine.self)
        #expect(engine.gearbox.engine === engine)
    }

    @Test func aHookRunsOnceForEachInstanceMade() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ in
            ServiceC()
        } initCompleted: { _, _ in
            counter.increment()
        }
        try locator.register(MemoryDatabase.self, lifetime: .transient) { _ in
            MemoryDatabase()
        } initCompleted: {
            _,
            _ in
            counter.increment()
        }
        _ = try locator.resolve(ServiceC.self)
        _ = try locator.resolve(ServiceC.self)
        #expect(counter.count == 1)
        _ = try locator.resolve(MemoryDatabase.self)
        _ = try locator.resolve(MemoryDatabase.self)
        #expect(counter.count == 3)
    }

    @Test func aCycleInFactoriesIsStillReportedWithItsPath() throws {
        let locator = Locator()
        try locator.register(ServiceA.self) { r in
            ServiceA(b: try r.resolve(ServiceB.self))
        } initCompleted: { _, _ in
        }
        try locator.register(ServiceB.self) { r in
            ServiceB(a: try r.resolve(ServiceA.self))
        } initCompleted: { _, _ in
        }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceA.self) }
        #expect(error?.code == .cycle)
        #expect(error?.path == ["ServiceA", "ServiceB", "ServiceA"])
    }

    @Test func aFailingHookFailsTheResolveThatMadeTheInstanceAndNamesIt() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in
            ServiceC()
        } initCompleted: { _, _ in
            throw Failure(reason: "hook")
        }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["ServiceC"])
        #expect(error?.underlying as? Failure == Failure(reason: "hook"))
        #expect(error?.description == "LocatorError.factoryFailed: ServiceC (initCompleted): Failure(reason: \"hook\")")
        #expect(try locator.resolve(ServiceC.self) === locator.resolve(ServiceC.self))
    }

    @Test func eagerAndTryRegisteredInstancesRunTheirHookAtRegistration() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self, lifetime: .eager) { _ in
            ServiceC()
        } initCompleted: { _, _ in
            counter.increment()
        }
        try locator.tryRegister(MemoryDatabase.self) { _ in
            MemoryDatabase()
        } initCompleted: { _, _ in
            counter.increment()
        }
        #expect(counter.count == 2)
    }

    @Test func anAsyncFactorysHookRunsOnceTheInstanceIsMade() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ async in
            ServiceC()
        } initCompleted: { _, _ in
            counter.increment()
        }
        _ = try await locator.resolve(ServiceC.self)
        _ = try await locator.resolve(ServiceC.self)
        #expect(counter.count == 1)
    }
}
