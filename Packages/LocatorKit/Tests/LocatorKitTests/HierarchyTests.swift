import LocatorKit
import Testing

struct HierarchyTests {
    @Test func aChildResolvesFromItselfThenItsAncestors() throws {
        let root = Locator(name: "root")
        let child = root.child(name: "child").child(name: "grandchild")
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        #expect(try child.resolve((any Clock).self).now == 1)
    }

    @Test func aChildRegistrationOverridesTheParentOnlyThroughTheChild() throws {
        let root = Locator()
        let child = root.child()
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        try child.register(FixedClock(now: 2), as: (any Clock).self)
        #expect(try child.resolve((any Clock).self).now == 2)
        #expect(try root.resolve((any Clock).self).now == 1)
    }

    @Test func aParentSingletonIsOneInstanceWhicheverChildAsksFirst() throws {
        let root = Locator()
        try root.register(ServiceC.self) { _ in ServiceC() }
        let first = root.child()
        let second = root.child()
        let fromSecond = try second.resolve(ServiceC.self)
        #expect(try first.resolve(ServiceC.self) === fromSecond)
        #expect(try root.resolve(ServiceC.self) === fromSecond)
    }

    @Test func aSingletonResolvesItsDependenciesInTheLocatorThatOwnsIt() throws {
        let root = Locator()
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        try root.register(MemoryDatabase(), as: (any Database).self)
        try root.register(Repository.self) { r in Repository(database: try r.resolve(), clock: try r.resolve()) }
        let child = root.child()
        try child.register(FixedClock(now: 2), as: (any Clock).self)
        #expect(try child.resolve(Repository.self).clock.now == 1)
    }

    @Test func aTransientInTheParentSeesTheChildsOverrides() throws {
        let root = Locator()
        try root.register(FixedClock(now: 1), as: (any Clock).self)
        try root.register(MemoryDatabase(), as: (any Database).self)
        try root.register(Repository.self, lifetime: .transient) { r in
            Repository(database: try r.resolve(), clock: try r.resolve())
        }
        let child = root.child()
        try child.register(FixedClock(now: 2), as: (any Clock).self)
        #expect(try child.resolve(Repository.self).clock.now == 2)
        #expect(try root.resolve(Repository.self).clock.now == 1)
    }

    @Test func droppingAChildReleasesWhatItOwns() throws {
        let root = Locator()
        weak var database: MemoryDatabase?
        do {
            let child = root.child()
            try child.register(MemoryDatabase.self) { _ in MemoryDatabase() }
            database = try child.resolve(MemoryDatabase.self)
            #expect(database != nil)
        }
        #expect(database == nil)
    }
}
