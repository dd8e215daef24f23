import LocatorKit
import LocatorKitTesting
import Testing

/// A locator shared by every test below, so the tests prove that overrides stay in their own task.
let sharedLocator: Locator = {
    let locator = Locator(name: "shared")
    _ = try? locator.register(FixedClock(now: 0), as: (any Clock).self)
    _ = try? locator.register(MemoryDatabase(), as: (any Database).self)
    _ = try? locator.register(Repository.self, lifetime: .transient) { r in
        Repository(database: try r.resolve(), clock: try r.resolve())
    }
    return locator
}()

struct OverridesTests {
    @Test func withOverridesReplacesAServiceInsideTheScopeOnly() throws {
        let now = try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 1))
        } operation: {
            try sharedLocator.resolve((any Clock).self).now
        }
        #expect(now == 1)
        #expect(try sharedLocator.resolve((any Clock).self).now == 0)
    }

    @Test func overridesReachDependenciesThatFactoriesResolve() async throws {
        let now = try await withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 5))
        } operation: {
            try await sharedLocator.resolve(Repository.self).clock.now
        }
        #expect(now == 5)
    }

    @Test func nestedOverridesStackAndUnwind() throws {
        try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 1))
            $0.override(LocatorKey<Int>("answer"), with: 42)
        } operation: { () throws in
            let inner = try withOverrides {
                $0.override((any Clock).self) { _ in FixedClock(now: 2) }
            } operation: {
                (try sharedLocator.resolve((any Clock).self).now, try sharedLocator.resolve(LocatorKey<Int>("answer")))
            }
            #expect(inner == (2, 42))
            let outer = try sharedLocator.resolve((any Clock).self).now
            #expect(outer == 1)
        }
    }

    @Test(arguments: 1...20)
    func parallelTestsNeverSeeEachOthersOverrides(value: Int) async throws {
        let seen = try await withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: value))
        } operation: {
            var seen = Set<Int>()
            for _ in 0..<50 {
                seen.insert(try await sharedLocator.resolve(Repository.self).clock.now)
                await Task.yield()
            }
            return seen
        }
        #expect(seen == [value])
    }

    @Test(.locatorOverrides { $0.override((any Clock).self, with: FixedClock(now: 99)) })
    func theTraitInstallsOverridesForOneTest() async throws {
        #expect(try await sharedLocator.resolve((any Clock).self).now == 99)
    }
}

@Suite(.locatorOverrides { $0.override((any Clock).self, with: FixedClock(now: 7)) })
struct OverridesTraitSuiteTests {
    @Test func theSuiteTraitAppliesToEveryTest() async throws {
        #expect(try await sharedLocator.resolve((any Clock).self).now == 7)
    }

    @Test func andToEveryOtherTest() throws {
        #expect(try sharedLocator.resolve(Repository.self).clock.now == 7)
    }
}
