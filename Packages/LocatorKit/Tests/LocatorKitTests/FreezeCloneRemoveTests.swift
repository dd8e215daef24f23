import LocatorKit
import Testing

struct FreezeCloneRemoveTests {
    @Test func aFrozenLocatorRefusesRegistrationsAndRemovals() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        locator.freeze()
        #expect(locator.isFrozen)
        let error = #expect(throws: LocatorError.self) { try locator.register(FixedClock(now: 0)) }
        #expect(error?.code == .readOnly)
        #expect(throws: LocatorError.self) { try locator.remove(ServiceC.self) }
        #expect(throws: LocatorError.self) { try locator.removeAll() }
        #expect(try locator.resolve(ServiceC.self) === locator.resolve(ServiceC.self))
    }

    @Test func aCloneCopiesRegistrationsAndSharesCreatedSingletons() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        try locator.register(MemoryDatabase.self) { _ in MemoryDatabase() }
        let created = try locator.resolve(ServiceC.self)
        let clone = try locator.clone()
        #expect(try clone.resolve(ServiceC.self) === created)
        #expect(try clone.resolve(MemoryDatabase.self) !== locator.resolve(MemoryDatabase.self))
        try clone.register(FixedClock(now: 3))
        #expect(!locator.isRegistered(FixedClock.self))
    }

    @Test func cloningCanBeDenied() throws {
        let denying = Locator(denyClone: true)
        #expect((try? denying.clone()) == nil)
        let frozen = Locator()
        frozen.freeze()
        let error = #expect(throws: LocatorError.self) { try frozen.clone() }
        #expect(error?.code == .cloneDenied)
        let open = Locator()
        open.freeze(denyClone: false)
        let copy = try open.clone()
        #expect(!copy.isFrozen)
        let later = Locator()
        later.denyCloning()
        #expect(throws: LocatorError.self) { try later.clone() }
    }

    @Test func removingOneOrAllRegistrations() throws {
        let root = Locator()
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        let child = root.child()
        try child.register(FixedClock(now: 2), as: (any Clock).self)
        try child.register(ServiceC.self) { _ in ServiceC() }
        try child.remove((any Clock).self)
        #expect(try child.resolve((any Clock).self).now == 1)
        try child.removeAll()
        #expect(!child.isRegistered(ServiceC.self))
        let key = LocatorKey<ServiceC>("c")
        try child.register(ServiceC(), for: key)
        try child.remove(key)
        #expect(child.resolveOptional(key) == nil)
    }
}
