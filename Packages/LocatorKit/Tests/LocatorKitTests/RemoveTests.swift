import LocatorKit
import Testing

struct RemoveTests {
    @Test func removeSaysWhetherARegistrationWasRemovedForEveryKeyKind() throws {
        let locator = Locator()
        try locator.register(ServiceC())
        try locator.register(ServiceC(), as: ServiceC.self, name: "named")
        try locator.register(ServiceC(), for: LocatorKey<ServiceC>("key"))
        try locator.register(LocatorParamsKey<FixedClock, Int>("clock")) { _, now in FixedClock(now: now) }
        try locator.register(FixedClock.self) { (_, now: Int) in FixedClock(now: now) }
        try locator.register(FixedClock.self) { (_, now: Int, offset: Int) in FixedClock(now: now + offset) }

        #expect(try locator.remove(ServiceC.self))
        #expect(try !locator.remove(ServiceC.self))
        #expect(try locator.remove(ServiceC.self, name: "named"))
        #expect(try !locator.remove(ServiceC.self, name: "named"))
        #expect(try !locator.remove(LocatorKey<MemoryDatabase>("key")))
        #expect(try locator.remove(LocatorKey<ServiceC>("key")))
        #expect(try !locator.remove(LocatorKey<ServiceC>("key")))
        #expect(try !locator.remove(LocatorParamsKey<FixedClock, String>("clock")))
        #expect(try locator.remove(LocatorParamsKey<FixedClock, Int>("clock")))
        #expect(try !locator.remove(FixedClock.self))
        #expect(try locator.remove(FixedClock.self, parameters: Int.self))
        #expect(try !locator.remove(FixedClock.self, parameters: Int.self))
        #expect(try locator.remove(FixedClock.self, parameters: Int.self, Int.self))
        #expect(locator.dump() == "Locator (unnamed)")
    }

    @Test func removingOneSignatureKeepsTheOthers() throws {
        let locator = Locator()
        try locator.register(Greeting(text: "plain"))
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: name) }
        #expect(try locator.remove(Greeting.self))
        #expect(try locator.resolve(Greeting.self, params: "kept").text == "kept")
        #expect(locator.isRegistered(Greeting.self))
        #expect(try locator.remove(Greeting.self, parameters: String.self))
        #expect(!locator.isRegistered(Greeting.self))
    }

    @Test func aFrozenLocatorStillRefusesRemoval() throws {
        let locator = Locator()
        try locator.register(ServiceC())
        locator.freeze()
        let error = #expect(throws: LocatorError.self) { try locator.remove(ServiceC.self) }
        #expect(error?.code == .readOnly)
    }
}
