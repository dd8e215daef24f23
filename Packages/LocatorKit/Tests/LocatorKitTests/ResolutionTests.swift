import LocatorKit
import Testing

struct ResolutionTests {
    @Test func factoriesReceiveAResolverForTheirDependencies() throws {
        let locator = Locator()
        try locator.register(MemoryDatabase(), as: (any Database).self)
        try locator.register(FixedClock(now: 42), as: (any Clock).self)
        try locator.register(Repository.self) { r in Repository(database: try r.resolve(), clock: try r.resolve()) }
        let repository = try locator.resolve(Repository.self)
        #expect(repository.clock.now == 42)
    }

    @Test func aMissNamesTheKeyAndListsNearCandidates() throws {
        let locator = Locator()
        try locator.register(MemoryDatabase(), as: (any Database).self, name: "replica")
        try locator.register(MemoryDatabase(), as: MemoryDatabase.self)
        let error = #expect(throws: LocatorError.self) { try locator.resolve((any Database).self) }
        #expect(error?.code == .notRegistered)
        #expect(error?.keyDescription == "Database")
        #expect(error?.candidates.first == "Database (name: \"replica\")")
        #expect(error?.description.contains("near candidates: Database (name: \"replica\")") == true)
    }

    @Test func theOptionalVariantReturnsNilInsteadOfThrowing() throws {
        let locator = Locator()
        #expect(locator.resolveOptional(ServiceC.self) == nil)
        try locator.register(ServiceC.self) { _ in ServiceC() }
        #expect(locator.resolveOptional(ServiceC.self) != nil)
    }

    @Test func aTypedKeyRegisteredWithAnotherTypeIsATypeMismatch() throws {
        let locator = Locator()
        try locator.register(MemoryDatabase(), for: LocatorKey<MemoryDatabase>("main"))
        let error = #expect(throws: LocatorError.self) { try locator.resolve(LocatorKey<ServiceC>("main")) }
        #expect(error?.code == .typeMismatch)
    }

    @Test func aFactoryFailureCarriesTheWholePathAndTheUnderlyingError() throws {
        let locator = Locator()
        try locator.register(ServiceA.self) { r in ServiceA(b: try r.resolve(ServiceB.self)) }
        try locator.register(ServiceB.self) { r in
            _ = try r.resolve(ServiceC.self)
            return ServiceB(a: nil)
        }
        try locator.register(ServiceC.self) { _ -> ServiceC in throw Failure(reason: "disk full") }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceA.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["ServiceA", "ServiceB", "ServiceC"])
        #expect(error?.underlying as? Failure == Failure(reason: "disk full"))
        #expect(error?.description.contains("ServiceA → ServiceB → ServiceC") == true)
    }

    @Test func aMissInsideAFactoryIsReportedWithThePathToIt() throws {
        let locator = Locator()
        try locator.register(ServiceA.self) { r in ServiceA(b: try r.resolve(ServiceB.self)) }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(ServiceA.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["ServiceA"])
        #expect((error?.underlying as? LocatorError)?.code == .notRegistered)
    }

    @Test func parameterisedFactoriesTakeATypedParameter() throws {
        let locator = Locator()
        try locator.register(FixedClock.self) { (_, now: Int) in FixedClock(now: now) }
        #expect(try locator.resolve(FixedClock.self, params: 7).now == 7)
        let key = LocatorParamsKey<FixedClock, Int>("clock")
        try locator.register(key) { _, now in FixedClock(now: now * 2) }
        #expect(try locator.resolve(key, params: 4).now == 8)
    }

    @Test func aWrongParameterTypeIsAWrongParamsError() throws {
        let locator = Locator()
        try locator.register(FixedClock.self) { (_, now: Int) in FixedClock(now: now) }
        let wrong = #expect(throws: LocatorError.self) { try locator.resolve(FixedClock.self, params: "seven") }
        #expect(wrong?.code == .wrongParams)
        let missing = #expect(throws: LocatorError.self) { try locator.resolve(FixedClock.self) }
        #expect(missing?.code == .wrongParams)
        try locator.register(ServiceC.self) { _ in ServiceC() }
        let unexpected = #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self, params: 1) }
        #expect(unexpected?.code == .wrongParams)
    }

    @Test func anOptionalParameterCanBeOmitted() throws {
        let locator = Locator()
        try locator.register(FixedClock.self) { (_, now: Int?) in FixedClock(now: now ?? -1) }
        #expect(try locator.resolve(FixedClock.self).now == -1)
        #expect(try locator.resolve(FixedClock.self, params: 3).now == 3)
    }

    @Test func providersHaveTheSeedsLifetimesAndBindParameters() throws {
        let counter = Counter()
        let lazy = Provider<ServiceC>(lazy: {
            counter.increment()
            return ServiceC()
        })
        #expect(counter.count == 0)
        #expect(try lazy.get() === lazy.get())
        #expect(counter.count == 1)
        let many = Provider(transient: { ServiceC() })
        #expect(try many.get() !== many.get())
        let instance = Provider(FixedClock(now: 5))
        #expect(instance.getOptional()?.now == 5)
        let params = ParamsProvider { (now: Int) in FixedClock(now: now) }
        #expect(try params.get(9).now == 9)
        let bound = params.bind(11)
        #expect(try bound.get().now == 11)
        let failing = Provider<ServiceC>(transient: { throw Failure() })
        #expect(failing.getOptional() == nil)
        #expect(throws: LocatorError.self) { try failing.get() }
    }

    @Test func providersCanBeRegistered() throws {
        let locator = Locator()
        try locator.register(provider: Provider<ServiceC>(lazy: { ServiceC() }))
        try locator.register(provider: ParamsProvider { (now: Int) in FixedClock(now: now) })
        #expect(try locator.resolve(ServiceC.self) === locator.resolve(ServiceC.self))
        #expect(try locator.resolve(FixedClock.self, params: 2).now == 2)
    }

    @Test func aProviderFromALocatorResolvesOnEachGet() throws {
        let locator = Locator()
        let provider = locator.provider(ServiceC.self)
        #expect(provider.getOptional() == nil)
        try locator.register(ServiceC.self) { _ in ServiceC() }
        #expect(try provider.get() === locator.resolve(ServiceC.self))
    }
}
