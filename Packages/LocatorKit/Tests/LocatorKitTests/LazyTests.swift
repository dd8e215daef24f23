import LocatorKit
import LocatorKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A service that counts how often its factory ran.
final class Made: Sendable {
    let number: Int

    init(number: Int) {
        self.number = number
    }
}

/// A service that reaches its recipient lazily, so the recipient can depend on it.
final class Courier: Sendable {
    let recipient: Lazy<Recipient>

    init(recipient: Lazy<Recipient>) {
        self.recipient = recipient
    }
}

final class Recipient: Sendable {
    let courier: Courier

    init(courier: Courier) {
        self.courier = courier
    }
}

struct LazyTests {
    @Test func nothingIsResolvedUntilTheFirstRead() throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(Made.self, lifetime: .transient) { _ in Made(number: counter.increment()) }
        let lazy = locator.lazy(Made.self)
        #expect(counter.count == 0)
        let first = try lazy.instance
        #expect(counter.count == 1)
        #expect(try lazy.instance === first)
        #expect(counter.count == 1)
    }

    @Test func theFirstInstanceIsKeptWhateverTheLifetimeAndSharedByCopies() throws {
        let locator = Locator()
        try locator.register(Made.self, name: "fresh", lifetime: .transient) { _ in Made(number: 0) }
        let lazy: Lazy<Made> = locator.lazy(name: "fresh")
        let copy = lazy
        let kept = try copy.instance
        #expect(try lazy.instance === kept)
        #expect(try locator.resolve(Made.self, name: "fresh") !== kept)
    }

    @Test func aHundredConcurrentFirstReadsCreateOneInstance() async throws {
        let locator = Locator()
        let counter = Counter()
        try locator.register(Made.self, lifetime: .transient) { _ in
            let number = counter.increment()
            usleep(20_000)
            return Made(number: number)
        }
        let lazy = locator.lazy(Made.self)
        let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<100 {
                group.addTask { await onThread { (try? lazy.instance).map(ObjectIdentifier.init) } }
            }
            return await group.reduce(into: [ObjectIdentifier?]()) { $0.append($1) }
        }
        #expect(counter.count == 1)
        #expect(identities.count == 100)
        #expect(Set(identities).count == 1)
        #expect(identities.first.flatMap { $0 } != nil)
    }

    @Test func aFailedFirstReadIsRetriedByTheNextRead() throws {
        let locator = Locator()
        let attempts = Counter()
        try locator.register(Made.self, lifetime: .transient) { _ in
            let attempt = attempts.increment()
            if attempt == 1 { throw Failure() }
            return Made(number: attempt)
        }
        let lazy = locator.lazy(Made.self)
        let error = #expect(throws: LocatorError.self) { try lazy.instance }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["Lazy<Made>", "Made"])
        #expect(error?.underlying as? Failure == Failure())
        #expect(try lazy.instance.number == 2)
        #expect(try lazy.instance.number == 2)
        #expect(attempts.count == 2)
    }

    @Test func aMissingServiceFailsTheReadNotTheHandle() throws {
        let locator = Locator()
        let lazy = locator.lazy(Made.self, name: "later")
        let error = #expect(throws: LocatorError.self) { try lazy.instance }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["Lazy<Made> (name: \"later\")"])
        #expect((error?.underlying as? LocatorError)?.code == .notRegistered)
        try locator.register(Made(number: 7), name: "later")
        #expect(try lazy.instance.number == 7)
    }

    @Test func aHandleDoesNotKeepItsLocatorAlive() throws {
        var locator: Locator? = Locator()
        try locator?.register(Made.self) { _ in Made(number: 1) }
        let read = try #require(locator?.lazy(Made.self))
        let unread = try #require(locator?.lazy(Made.self))
        _ = try read.instance
        weak let released = locator
        locator = nil
        #expect(released == nil)
        #expect(try read.instance.number == 1)
        let error = #expect(throws: LocatorError.self) { try unread.instance }
        #expect(error?.code == .released)
    }

    @Test func aHandleBreaksACycleThatFactoriesCannot() throws {
        let locator = Locator()
        try locator.register(Courier.self) { r in Courier(recipient: r.lazy()) }
        try locator.register(Recipient.self) { r in Recipient(courier: try r.resolve()) }
        let courier = try locator.resolve(Courier.self)
        #expect(try courier.recipient.instance.courier === courier)
        #expect(try courier.recipient.instance === locator.resolve(Recipient.self))
    }

    @Test func readingAHandleWhileItIsBeingMadeIsACycle() throws {
        let locator = Locator()
        let lazy = locator.lazy(Made.self)
        try locator.register(Made.self) { _ in Made(number: try lazy.instance.number) }
        let error = #expect(throws: LocatorError.self) { try lazy.instance }
        #expect(error?.code == .cycle)
        #expect(error?.path == ["Lazy<Made>", "Made", "Lazy<Made>"])
    }

    @Test func anOverrideScopeNeverLeavesItsDoubleInAHandle() async throws {
        let locator = Locator()
        try locator.register(Made.self) { _ in Made(number: 1) }
        let lazy = locator.lazy(Made.self)
        let inside = try withOverrides {
            $0.override(Made.self, with: Made(number: 2))
        } operation: {
            try lazy.instance.number
        }
        #expect(inside == 2)
        #expect(try lazy.instance.number == 1)
        let again = try withOverrides {
            $0.override(Made.self, with: Made(number: 3))
        } operation: {
            try lazy.instance.number
        }
        #expect(again == 3)
        #expect(try lazy.instance.number == 1)
    }
}
