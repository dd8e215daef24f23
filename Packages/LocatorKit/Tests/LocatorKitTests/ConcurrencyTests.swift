import Dispatch
import LocatorKit
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ConcurrencyTests {
    @Test func aLocatorIsSendableAndUsableFromManyTasks() async throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        let expected = try await locator.resolve(ServiceC.self)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { try await locator.resolve(ServiceC.self) === expected }
            }
            for try await same in group { #expect(same) }
        }
    }

    @Test func aLazySingletonIsCreatedExactlyOnceWhenThreadsRace() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ in
            counter.increment()
            usleep(20_000)
            return ServiceC()
        }
        let results = await withTaskGroup(of: ServiceC?.self) { group in
            for _ in 0..<8 {
                group.addTask { await onThread { try? locator.resolve(ServiceC.self) } }
            }
            return await group.reduce(into: [ServiceC?]()) { $0.append($1) }
        }
        #expect(counter.count == 1)
        #expect(Set(results.map { $0.map(ObjectIdentifier.init) }).count == 1)
    }

    @Test func aSlowFactoryNeverBlocksResolvingAnAlreadyCreatedService() async throws {
        let locator = Locator()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Set when the slow factory returns: had any of the calls below waited for it, it would be set by then.
        let factoryReturned = Atomic(false)
        try locator.register(ServiceC.self) { _ in ServiceC() }
        _ = try await locator.resolve(ServiceC.self)
        try locator.register(MemoryDatabase.self) { _ in
            started.signal()
            _ = release.wait(timeout: .now() + 30)
            factoryReturned.store(true, ordering: .sequentiallyConsistent)
            return MemoryDatabase()
        }
        async let slow = onThread { try? locator.resolve(MemoryDatabase.self) }
        _ = await onThread { started.wait(timeout: .now() + 30) }
        // The synchronous forms, as a thread that is not a task would call them.
        let calls = { () throws in
            _ = try locator.resolve(ServiceC.self) as ServiceC
            try locator.register(FixedClock(now: 1))
            _ = locator.dump()
        }
        try calls()
        let returnedBeforeRelease = factoryReturned.load(ordering: .sequentiallyConsistent)
        release.signal()
        #expect(await slow != nil)
        #expect(!returnedBeforeRelease, "a call waited for the slow factory")
    }

    @Test func noLockIsHeldWhileAFactoryRuns() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { [locator] _ in
            try locator.register(FixedClock(now: 9))
            _ = locator.dump()
            _ = try locator.clone()
            return ServiceC()
        }
        _ = try locator.resolve(ServiceC.self) as ServiceC
        #expect(try locator.resolve(FixedClock.self).now == 9)
    }

    @Test func asyncFactoriesAreSingleFlight() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ async throws in
            counter.increment()
            try await Task.sleep(for: .milliseconds(20))
            return ServiceC()
        }
        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<20 {
                group.addTask { ObjectIdentifier(try await locator.resolve(ServiceC.self)) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(counter.count == 1)
    }

    @Test func cancellingOneWaiterDoesNotFailTheOthers() async throws {
        let locator = Locator()
        let counter = Counter()
        let gate = Barrier(parties: 2)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        try locator.register(ServiceC.self) { _ async throws in
            counter.increment()
            start.yield()
            await gate.arrive()
            return ServiceC()
        }
        let first = Task { try await locator.resolve(ServiceC.self) }
        let second = Task { try await locator.resolve(ServiceC.self) }
        // The shared creation is under way (held at the gate) before one of its waiters is cancelled.
        _ = await started.first { _ in true }
        first.cancel()
        await gate.arrive()
        let service = try await second.value
        #expect(counter.count == 1)
        #expect(try await locator.resolve(ServiceC.self) === service)
        _ = await first.result
    }

    @Test func anAsyncLazyFailureIsSharedByItsWaitersAndRetriedLater() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self) { _ async throws in
            if counter.increment() == 1 {
                try await Task.sleep(for: .milliseconds(10))
                throw Failure()
            }
            return ServiceC()
        }
        async let first = try? await locator.resolve(ServiceC.self)
        async let second = try? await locator.resolve(ServiceC.self)
        let results = await [first, second]
        #expect(results.allSatisfy { $0 == nil })
        _ = try await locator.resolve(ServiceC.self)
        #expect(counter.count == 2)
    }

    @Test func aSynchronousResolveOfAnUncreatedAsyncServiceAsksForAwait() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ async in ServiceC() }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self) }
        #expect(error?.code == .asyncRequired)
    }

    @Test func anEagerAsyncFactoryStartsAtRegistration() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(ServiceC.self, lifetime: .eager) { _ async in
            counter.increment()
            return ServiceC()
        }
        let service = try await locator.resolve(ServiceC.self)
        #expect(try await locator.resolve(ServiceC.self) === service)
        #expect(counter.count == 1)
    }

    @Test func aMainActorFactoryRunsOnTheMainActor() async throws {
        let locator = Locator()
        try locator.register(FixedClock.self) { @MainActor _ async in
            MainActor.preconditionIsolated()
            return FixedClock(now: MainActorProbe.value)
        }
        #expect(try await locator.resolve(FixedClock.self).now == 17)
    }

    @Test func hammeringOneSingletonFromManyThreadsIsConsistent() async throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        let expected = ObjectIdentifier(try await locator.resolve(ServiceC.self))
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await onThread {
                        var bad = 0
                        for _ in 0..<10_000 where (try? ObjectIdentifier(locator.resolve(ServiceC.self))) != expected {
                            bad += 1
                        }
                        return bad
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func readersStaySafeWhileAnotherThreadReplacesAndRemovesTheRegistration() async throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }
        let failures = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                await onThread {
                    var failures = 0
                    for index in 0..<2_000 {
                        do {
                            // Replacing frees the old registration; removing and adding others rebuilds the table.
                            try locator.register(ServiceC.self) { _ in ServiceC() }
                            try locator.register(FixedClock(now: index), name: "clock\(index % 40)")
                            if index % 7 == 0 { try locator.remove(ServiceC.self) }
                        } catch {
                            failures += 1
                        }
                    }
                    return failures
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    await onThread {
                        var failures = 0
                        for _ in 0..<20_000 {
                            do {
                                _ = try locator.resolve(ServiceC.self)
                            } catch let error as LocatorError where error.code == .notRegistered {
                                continue
                            } catch {
                                failures += 1
                            }
                        }
                        return failures
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(try await locator.resolve(FixedClock.self, name: "clock0").now % 40 == 0)
    }
}

@MainActor
enum MainActorProbe {
    static let value = 17
}
