import LocatorKit
import LocatorKitTesting
import Testing

final class Reporter: Sendable {
    let repository: Repository

    init(repository: Repository) {
        self.repository = repository
    }
}

/// A locator with a real clock, a database and a lazy `Repository` singleton built on both.
func makeAppLocator(repositoryLifetime: Lifetime = .lazy) throws -> Locator {
    let locator = Locator(name: "app")
    try locator.register(FixedClock(now: 0), as: (any Clock).self)
    try locator.register((any Database).self) { _ in MemoryDatabase(label: "real") }
    try locator.register(Repository.self, lifetime: repositoryLifetime) { r in
        Repository(database: try r.resolve(), clock: try r.resolve())
    }
    return locator
}

/// A singleton shared by the parallel tests below: first made by whichever test gets there first.
let sharedAppLocator: Locator = {
    let locator = Locator(name: "shared app")
    _ = try? locator.register(FixedClock(now: 0), as: (any Clock).self)
    _ = try? locator.register((any Database).self) { _ in MemoryDatabase(label: "real") }
    _ = try? locator.register(Repository.self) { r in Repository(database: try r.resolve(), clock: try r.resolve()) }
    _ = try? locator.register(Reporter.self) { r in Reporter(repository: try r.resolve()) }
    return locator
}()

struct OverrideIsolationTests {
    @Test(arguments: [Lifetime.lazy, .weak, .scoped("session")])
    func aSingletonFirstMadeInsideAScopeDoesNotKeepTheDoubleAfterIt(lifetime: Lifetime) throws {
        let locator = try makeAppLocator(repositoryLifetime: lifetime)
        let inside = try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 99))
        } operation: {
            try locator.resolve(Repository.self)
        }
        #expect(inside.clock.now == 99)
        let outside = try locator.resolve(Repository.self)
        #expect(outside.clock.now == 0)
        #expect(outside !== inside)
    }

    @Test func aSingletonMadeInsideAScopeFromNoReplacedServiceIsKept() throws {
        let locator = try makeAppLocator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        let inside = try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 99))
        } operation: {
            try locator.resolve(ServiceC.self)
        }
        #expect(try locator.resolve(ServiceC.self) === inside)
    }

    @Test func aCachedSingletonBuiltOnAReplacedServiceIsRebuiltForTheScope() throws {
        let locator = try makeAppLocator()
        let real = try locator.resolve(Repository.self)
        try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 99))
        } operation: {
            let first = try locator.resolve(Repository.self)
            #expect(first.clock.now == 99)
            #expect(first !== real)
            #expect(try locator.resolve(Repository.self) === first)
            #expect(first.database === real.database)
        }
        #expect(try locator.resolve(Repository.self) === real)
    }

    @Test func theReplacementIsFoundThroughOtherSingletonsAndTransients() throws {
        let locator = try makeAppLocator()
        try locator.register(Reporter.self) { r in Reporter(repository: try r.resolve()) }
        try locator.register(Node.self, lifetime: .transient) { r in
            Node(id: try r.resolve((any Clock).self).now, next: nil)
        }
        try locator.register([Node].self) { r in [try r.resolve(Node.self)] }
        let reporter = try locator.resolve(Reporter.self)
        let nodes = try locator.resolve([Node].self)
        try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 7))
        } operation: { () throws in
            #expect(try locator.resolve(Reporter.self).repository.clock.now == 7)
            #expect(try locator.resolve([Node].self).map(\.id) == [7])
        }
        #expect(try locator.resolve(Reporter.self) === reporter)
        #expect(try locator.resolve([Node].self).map(\.id) == nodes.map(\.id))
    }

    @Test func aGraphInstanceSharedBySingletonsPassesOnWhatItWasBuiltOn() throws {
        let locator = Locator()
        try locator.register(FixedClock(now: 0), as: (any Clock).self)
        try locator.register(Repository.self, lifetime: .graph) { r in
            Repository(database: MemoryDatabase(), clock: try r.resolve())
        }
        try locator.register(Reporter.self) { r in Reporter(repository: try r.resolve()) }
        try locator.register(Reporter.self, name: "second") { r in Reporter(repository: try r.resolve()) }
        try locator.register([Reporter].self, lifetime: .transient) { r in
            [try r.resolve(Reporter.self), try r.resolve(Reporter.self, name: "second")]
        }
        let real = try locator.resolve([Reporter].self)
        #expect(real[0].repository === real[1].repository)
        try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 6))
        } operation: {
            let scoped = try locator.resolve([Reporter].self)
            #expect(scoped.map(\.repository.clock.now) == [6, 6])
        }
    }

    @Test func anEagerSingletonRegisteredInsideAScopeIsMadeAgainOutside() throws {
        let locator = Locator()
        try locator.register(FixedClock(now: 0), as: (any Clock).self)
        let counter = Counter()
        let inside = try withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 5))
        } operation: {
            try locator.register(Repository.self, lifetime: .eager) { r in
                counter.increment()
                return Repository(database: MemoryDatabase(), clock: try r.resolve())
            }
            return try locator.resolve(Repository.self)
        }
        #expect(inside.clock.now == 5)
        #expect(try locator.resolve(Repository.self).clock.now == 0)
        #expect(counter.count == 2)
    }

    @Test func asyncFactoriesAndAsyncResolvesFollowTheSameRules() async throws {
        let locator = Locator()
        try locator.register(FixedClock(now: 0), as: (any Clock).self)
        try locator.register(Repository.self) { r async throws in
            Repository(database: MemoryDatabase(), clock: try await r.resolve((any Clock).self))
        }
        let inside = try await withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 3))
        } operation: {
            try await locator.resolve(Repository.self)
        }
        #expect(inside.clock.now == 3)
        let real = try await locator.resolve(Repository.self)
        #expect(real.clock.now == 0)
        let again = try await withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: 4))
        } operation: {
            try await locator.resolve(Repository.self)
        }
        #expect(again.clock.now == 4)
        #expect(try await locator.resolve(Repository.self) === real)
    }

    @Test func aReplacedRegisteredTypeReachesItsForwardedTypes() throws {
        let locator = Locator()
        try locator.register(SQLStore.self) { _ in SQLStore(label: "real") }.implements((any Database).self)
        try withOverrides {
            $0.override(SQLStore.self, with: SQLStore(label: "double"))
        } operation: { () throws in
            #expect(try locator.resolve((any Database).self).label == "double")
        }
        #expect(try locator.resolve((any Database).self).label == "real")
    }

    @Test func nestedScopesRebuildForTheirOwnReplacements() throws {
        let locator = try makeAppLocator()
        try withOverrides {
            $0.override((any Database).self, with: MemoryDatabase(label: "outer"))
        } operation: {
            let outer = try locator.resolve(Repository.self)
            #expect(outer.database.label == "outer")
            try withOverrides {
                $0.override((any Clock).self, with: FixedClock(now: 8))
            } operation: {
                let inner = try locator.resolve(Repository.self)
                #expect(inner.database.label == "outer")
                #expect(inner.clock.now == 8)
            }
            #expect(try locator.resolve(Repository.self) === outer)
        }
        #expect(try locator.resolve(Repository.self).database.label == "real")
    }

    @Test(arguments: 1...20)
    func parallelScopesNeverSeeEachOthersSingletons(value: Int) async throws {
        let seen = try await withOverrides {
            $0.override((any Clock).self, with: FixedClock(now: value))
        } operation: {
            var seen = Set<Int>()
            for _ in 0..<20 {
                seen.insert(try await sharedAppLocator.resolve(Reporter.self).repository.clock.now)
                await Task.yield()
            }
            return seen
        }
        #expect(seen == [value])
        #expect(try await sharedAppLocator.resolve(Reporter.self).repository.clock.now == 0)
    }
}
