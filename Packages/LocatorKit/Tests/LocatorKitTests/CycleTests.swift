import Dispatch
import LocatorKit
import Synchronization
import Testing

struct CycleTests {
    @Test(arguments: [Lifetime.lazy, .transient, .graph, .weak, .scoped("s")])
    func aSameThreadCycleThrowsAnErrorNamingIt(lifetime: Lifetime) throws {
        let locator = Locator()
        try locator.register(ServiceA.self, lifetime: lifetime) { r in ServiceA(b: try r.resolve(ServiceB.self)) }
        try locator.register(ServiceB.self, lifetime: lifetime) { r in ServiceB(a: try r.resolve(ServiceA.self)) }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceA.self) }
        #expect(error?.code == .cycle)
        #expect(error?.path == ["ServiceA", "ServiceB", "ServiceA"])
        #expect(error?.description == "LocatorError.cycle: dependency cycle ServiceA → ServiceB → ServiceA")
        try locator.register(ServiceB.self) { _ in ServiceB(a: nil) }
        #expect(try locator.resolve(ServiceA.self).b != nil)
    }

    @Test func aCycleThroughACapturedLocatorIsDetectedToo() throws {
        let locator = Locator()
        try locator.register(ServiceA.self) { [locator] _ in ServiceA(b: try locator.resolve(ServiceB.self)) }
        try locator.register(ServiceB.self) { [locator] _ in ServiceB(a: try locator.resolve(ServiceA.self)) }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceA.self) }
        #expect(error?.code == .cycle)
        #expect(error?.path == ["ServiceA", "ServiceB", "ServiceA"])
    }

    @Test func aCycleAcrossTwoThreadsThrowsInsteadOfDeadlocking() async throws {
        let locator = Locator()
        let aStarted = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        let attempts = Counter()
        try locator.register(ServiceA.self) { r in
            if attempts.increment() == 1 {
                aStarted.signal()
                _ = bStarted.wait(timeout: .now() + 5)
            }
            return ServiceA(b: try r.resolve(ServiceB.self))
        }
        try locator.register(ServiceB.self) { r in
            bStarted.signal()
            _ = aStarted.wait(timeout: .now() + 5)
            return ServiceB(a: try r.resolve(ServiceA.self))
        }
        async let first = onThread { () -> LocatorError? in
            do { _ = try locator.resolve(ServiceA.self) } catch { return error as? LocatorError }
            return nil
        }
        async let second = onThread { () -> LocatorError? in
            do { _ = try locator.resolve(ServiceB.self) } catch { return error as? LocatorError }
            return nil
        }
        let errors = await [first, second]
        for error in errors {
            #expect(error?.code == .cycle)
            #expect(error?.path.count == 3)
            #expect(error?.path.first == error?.path.last)
        }
        try locator.register(ServiceB.self) { _ in ServiceB(a: nil) }
        #expect(try await locator.resolve(ServiceA.self).b != nil)
    }

    @Test func aCycleThroughAsyncFactoriesThrows() async throws {
        let locator = Locator()
        try locator.register(ServiceA.self) { r async throws in ServiceA(b: try await r.resolve(ServiceB.self)) }
        try locator.register(ServiceB.self) { r async throws in ServiceB(a: try await r.resolve(ServiceA.self)) }
        do {
            _ = try await locator.resolve(ServiceA.self)
            Issue.record("expected a cycle")
        } catch {
            #expect(error.code == .cycle)
            #expect(error.path == ["ServiceA", "ServiceB", "ServiceA"])
        }
    }

    @Test func aCycleAcrossTwoTasksWithAsyncFactoriesThrows() async throws {
        let locator = Locator()
        let gate = Barrier(parties: 2)
        try locator.register(ServiceA.self) { r async throws in
            await gate.arrive()
            return ServiceA(b: try await r.resolve(ServiceB.self))
        }
        try locator.register(ServiceB.self) { r async throws in
            await gate.arrive()
            return ServiceB(a: try await r.resolve(ServiceA.self))
        }
        async let first: LocatorError? = {
            do { _ = try await locator.resolve(ServiceA.self) } catch { return error as? LocatorError }
            return nil
        }()
        async let second: LocatorError? = {
            do { _ = try await locator.resolve(ServiceB.self) } catch { return error as? LocatorError }
            return nil
        }()
        for error in await [first, second] {
            #expect(error?.code == .cycle)
        }
    }

    @Test func aFiveHundredDeepAcyclicChainResolves() throws {
        let locator = Locator()
        let depth = 500
        for index in 0..<depth {
            try locator.register(Node.self, name: "\(index)") { r in
                Node(id: index, next: index + 1 < depth ? try r.resolve(Node.self, name: "\(index + 1)") : nil)
            }
        }
        var node: Node? = try locator.resolve(Node.self, name: "0")
        var count = 0
        while let current = node {
            count += 1
            node = current.next
        }
        #expect(count == depth)
    }

    @Test func aResolverKeptPastItsFactoryStillResolvesSafely() throws {
        let locator = Locator()
        let kept = Mutex<Resolver?>(nil)
        try locator.register(ServiceC.self) { _ in ServiceC() }
        try locator.register(Counter.self, lifetime: .transient) { r in
            kept.withLock { $0 = r }
            return Counter()
        }
        _ = try locator.resolve(Counter.self)
        let resolver = try #require(kept.withLock { $0 })
        #expect(try resolver.resolve(ServiceC.self) === locator.resolve(ServiceC.self))
        #expect(throws: LocatorError.self) { try resolver.resolve(Node.self) }
    }

    @Test func aResolverUsedFromAnotherThreadInsideItsFactoryWorks() throws {
        let locator = Locator()
        try locator.register(ServiceC.self, lifetime: .transient) { _ in ServiceC() }
        try locator.register(ServiceA.self, lifetime: .transient) { r in
            let fromThread = DispatchQueue.global().sync { try? r.resolve(ServiceC.self) }
            #expect(fromThread != nil)
            return ServiceA(b: nil)
        }
        _ = try locator.resolve(ServiceA.self)
    }

    @Test func aProviderBreaksALegitimateCycle() throws {
        let locator = Locator()
        try locator.register(Parent.self) { r in Parent(child: try r.resolve(Child.self)) }
        try locator.register(Child.self) { r in Child(parent: r.provider(Parent.self)) }
        let parent = try locator.resolve(Parent.self)
        #expect(try parent.child.parent.get() === parent)
    }
}

final class Parent: Sendable {
    let child: Child

    init(child: Child) {
        self.child = child
    }
}

final class Child: Sendable {
    let parent: Provider<Parent>

    init(parent: Provider<Parent>) {
        self.parent = parent
    }
}

/// Runs blocking work on a dispatch thread, off the cooperative pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}

/// Suspends callers until `parties` of them have arrived.
actor Barrier {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) {
        self.parties = parties
    }

    func arrive() async {
        arrived += 1
        if arrived >= parties {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
