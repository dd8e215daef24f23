import LocatorKit
import Synchronization

protocol Clock: Sendable {
    var now: Int { get }
}

struct FixedClock: Clock {
    var now: Int
}

protocol Database: AnyObject, Sendable {
    var label: String { get }
}

final class MemoryDatabase: Database {
    let label: String

    init(label: String = "memory") {
        self.label = label
    }
}

final class Repository: Sendable {
    let database: any Database
    let clock: any Clock

    init(database: any Database, clock: any Clock) {
        self.database = database
        self.clock = clock
    }
}

final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int {
        value.add(1, ordering: .relaxed).newValue
    }

    var count: Int { value.load(ordering: .relaxed) }
}

struct Failure: Error, Equatable {
    var reason = "boom"
}

final class Node: Sendable {
    let id: Int
    let next: Node?

    init(id: Int, next: Node?) {
        self.id = id
        self.next = next
    }
}

final class ServiceA: Sendable {
    let b: ServiceB?

    init(b: ServiceB?) {
        self.b = b
    }
}

final class ServiceB: Sendable {
    let a: ServiceA?

    init(a: ServiceA?) {
        self.a = a
    }
}

final class ServiceC: Sendable {}
