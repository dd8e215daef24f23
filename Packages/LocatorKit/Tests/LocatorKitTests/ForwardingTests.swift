import LocatorKit
import Testing

protocol Named: Sendable {
    var label: String { get }
}

protocol Closable: AnyObject, Sendable {}

final class SQLStore: Database, Named, Closable {
    let label: String

    init(label: String) {
        self.label = label
    }
}

struct ForwardingTests {
    @Test func forwardedTypesShareTheSingletonOfTheRegistration() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(SQLStore.self) { _ in SQLStore(label: "store\(counter.increment())") }
            .implements((any Database).self)
            .implements((any Closable).self)
        let store = try locator.resolve(SQLStore.self)
        #expect(try locator.resolve((any Database).self) === store)
        #expect(try locator.resolve((any Closable).self) === store)
        #expect(counter.count == 1)
    }

    @Test func resolvingAForwardedTypeFirstCreatesTheOneInstance() async throws {
        let locator = Locator()
        try locator.register(SQLStore.self) { _ in SQLStore(label: "s") }.implements((any Database).self)
        let database = try await locator.resolve((any Database).self)
        #expect(try await locator.resolve(SQLStore.self) === database)
    }

    @Test(arguments: [Lifetime.transient, .graph, .weak, .scoped("session"), .eager])
    func forwardingFollowsTheLifetimeOfTheRegistration(lifetime: Lifetime) throws {
        let locator = Locator()
        try locator.register(SQLStore.self, lifetime: lifetime) { _ in SQLStore(label: "s") }
            .implements((any Database).self)
        try locator.register([any Database].self, lifetime: .transient) { r in
            [try r.resolve(SQLStore.self), try r.resolve((any Database).self)]
        }
        let pair = try locator.resolve([any Database].self)
        if lifetime == .transient {
            #expect(pair[0] !== pair[1])
        } else {
            #expect(pair[0] === pair[1])
        }
        let held = try locator.resolve(SQLStore.self)
        let forwarded = try locator.resolve((any Database).self)
        #expect((forwarded === held) == (lifetime != .transient && lifetime != .graph))
    }

    @Test func aForwardingKeepsTheRegistrationsNameAndWorksForInstances() throws {
        let locator = Locator()
        let store = SQLStore(label: "replica")
        try locator.register(store, as: SQLStore.self, name: "replica").implements((any Named).self)
        #expect(try locator.resolve((any Named).self, name: "replica").label == "replica")
        #expect(!locator.isRegistered((any Named).self))
    }

    @Test func anInstanceThatIsNotTheForwardedTypeIsATypeMismatch() throws {
        let locator = Locator()
        try locator.register(ServiceC.self) { _ in ServiceC() }.implements((any Database).self)
        let error = #expect(throws: LocatorError.self) { try locator.resolve((any Database).self) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.description.contains("ServiceC, registered for ServiceC, is not a Database") == true)
    }

    @Test func forwardedTypesAppearInResolveAllAndDump() throws {
        let locator = Locator(name: "app")
        try locator.register(SQLStore.self) { _ in SQLStore(label: "s") }.implements((any Database).self)
        try locator.register(MemoryDatabase(label: "m"), as: (any Database).self, name: "memory")
        #expect(try locator.resolveAll((any Database).self).map(\.label) == ["s", "m"])
        #expect(locator.dump().contains("Database: forwarded to SQLStore"))
    }

    @Test func aChildOverrideOfTheRegisteredTypeDoesNotChangeTheParentsForwarding() throws {
        let root = Locator()
        try root.register(SQLStore.self) { _ in SQLStore(label: "root") }.implements((any Database).self)
        let child = root.child()
        try child.register(SQLStore(label: "child"))
        #expect(try child.resolve((any Database).self).label == "root")
    }
}

struct ForwardingLoopTests {
    @Test func forwardingsNeverChainSoTheyCannotLoop() throws {
        let locator = Locator()
        let store = try locator.register(SQLStore.self) { _ in SQLStore(label: "s") }
        let database = try locator.register((any Database).self) { _ in MemoryDatabase() }
        try store.implements((any Database).self)
        try database.implements(SQLStore.self)
        let error = #expect(throws: LocatorError.self) { try locator.resolve(SQLStore.self) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.description.contains("is itself forwarded") == true)
        try store.implements(SQLStore.self)
        #expect(locator.isRegistered(SQLStore.self))
    }
}
