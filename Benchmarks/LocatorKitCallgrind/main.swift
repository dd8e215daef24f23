// Runs one LocatorKit or Swinject scenario N times, for instruction counts under valgrind's callgrind:
//
//     valgrind --tool=callgrind LocatorKitCallgrind <scenario> <N>
//
// Per-operation cost = (instructions at 2N - instructions at N) / N, which cancels start-up and set-up.
import LocatorKit
import Swinject

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

protocol Logging: AnyObject, Sendable {}
final class ConsoleLogger: Logging {}
protocol Storing: AnyObject, Sendable {}
final class MemoryStore: Storing {}
final class Handler: Sendable {
    let logger: any Logging
    let store: any Storing

    init(logger: any Logging, store: any Storing) {
        self.logger = logger
        self.store = store
    }
}
final class Unregistered: Sendable {}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func fail(_ message: String) -> Never {
    print(message)
    exit(1)
}

/// A locator with the scenario's services, plus `filler` unrelated registrations.
func makeLocator(filler: Int = 0) throws(LocatorError) -> Locator {
    let locator = Locator()
    for index in 0..<filler {
        try locator.register(MemoryStore.self, name: "filler\(index)") { _ in MemoryStore() }
    }
    try locator.register((any Logging).self) { _ in ConsoleLogger() }
    try locator.register((any Logging).self, name: "named") { _ in ConsoleLogger() }
    try locator.register(LocatorKey<any Logging>("key")) { _ in ConsoleLogger() }
    try locator.register((any Storing).self) { _ in MemoryStore() }
    try locator.register(Handler.self, lifetime: .transient) { r in
        Handler(logger: try r.resolve(), store: try r.resolve())
    }
    _ = try locator.resolve((any Logging).self)
    _ = try locator.resolve((any Logging).self, name: "named")
    _ = try locator.resolve(LocatorKey<any Logging>("key"))
    _ = try locator.resolve((any Storing).self)
    return locator
}

func makeContainer(synchronized: Bool = false) -> Swinject.Container {
    let container = Swinject.Container()
    container.register((any Logging).self) { _ in ConsoleLogger() }.inObjectScope(.container)
    container.register((any Logging).self, name: "named") { _ in ConsoleLogger() }.inObjectScope(.container)
    container.register((any Storing).self) { _ in MemoryStore() }.inObjectScope(.container)
    container.register(Handler.self) { r in
        Handler(logger: r.resolve((any Logging).self)!, store: r.resolve((any Storing).self)!)
    }.inObjectScope(.transient)
    container.register(MemoryStore.self) { _ in MemoryStore() }.inObjectScope(.transient)
    _ = container.resolve((any Logging).self)
    _ = container.resolve((any Logging).self, name: "named")
    _ = container.resolve((any Storing).self)
    return container
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let iterations = Int(arguments[2]) else {
    fail("usage: LocatorKitCallgrind <scenario> <iterations>")
}

do {
    switch arguments[1] {
    case "locator.singleton":
        let locator = try makeLocator()
        for _ in 0..<iterations { blackHole(try locator.resolve((any Logging).self)) }
    case "locator.singleton.frozen":
        let locator = try makeLocator()
        locator.freeze()
        for _ in 0..<iterations { blackHole(try locator.resolve((any Logging).self)) }
    case "locator.singleton.10":
        let locator = try makeLocator(filler: 10)
        for _ in 0..<iterations { blackHole(try locator.resolve((any Logging).self)) }
    case "locator.singleton.10000":
        let locator = try makeLocator(filler: 10_000)
        for _ in 0..<iterations { blackHole(try locator.resolve((any Logging).self)) }
    case "locator.named":
        let locator = try makeLocator()
        for _ in 0..<iterations { blackHole(try locator.resolve((any Logging).self, name: "named")) }
    case "locator.key":
        let locator = try makeLocator()
        let key = LocatorKey<any Logging>("key")
        for _ in 0..<iterations { blackHole(try locator.resolve(key)) }
    case "locator.child":
        let locator = try makeLocator()
        let child = locator.child()
        for _ in 0..<iterations { blackHole(try child.resolve((any Logging).self)) }
    case "locator.transient2":
        let locator = try makeLocator()
        for _ in 0..<iterations { blackHole(try locator.resolve(Handler.self)) }
    case "locator.miss":
        let locator = try makeLocator()
        for _ in 0..<iterations { blackHole(try? locator.resolve(Unregistered.self)) }
    case "swinject.singleton":
        let container = makeContainer()
        for _ in 0..<iterations { blackHole(container.resolve((any Logging).self)) }
    case "swinject.singleton.synchronized":
        let resolver = makeContainer().synchronize()
        for _ in 0..<iterations { blackHole(resolver.resolve((any Logging).self)) }
    case "swinject.named":
        let container = makeContainer()
        for _ in 0..<iterations { blackHole(container.resolve((any Logging).self, name: "named")) }
    case "swinject.child":
        let child = Swinject.Container(parent: makeContainer())
        for _ in 0..<iterations { blackHole(child.resolve((any Logging).self)) }
    case "swinject.transient":
        let container = makeContainer()
        for _ in 0..<iterations { blackHole(container.resolve(MemoryStore.self)) }
    case "swinject.transient2":
        let container = makeContainer()
        for _ in 0..<iterations { blackHole(container.resolve(Handler.self)) }
    case "swinject.miss":
        let container = makeContainer()
        for _ in 0..<iterations { blackHole(container.resolve(Unregistered.self)) }
    case "locator.params":
        // A factory taking a parameter, resolved with an argument of exactly its parameter's type.
        let locator = try makeLocator()
        try locator.register(Handler.self, name: "levelled") { (r, level: Int) in
            Handler(logger: try r.resolve(), store: try r.resolve())
        }
        for index in 0..<iterations { blackHole(try locator.resolve(Handler.self, name: "levelled", params: index)) }
    case "locator.params.existential":
        // A factory taking a protocol-typed parameter, resolved with a value of the protocol's existential type.
        let locator = try makeLocator()
        try locator.register(Handler.self, name: "logged") { (r, logger: any Logging) in
            Handler(logger: logger, store: try r.resolve())
        }
        let logger: any Logging = ConsoleLogger()
        for _ in 0..<iterations { blackHole(try locator.resolve(Handler.self, name: "logged", params: logger)) }
    case "locator.transient":
        let locator = try makeLocator()
        try locator.register(MemoryStore.self, lifetime: .transient) { _ in MemoryStore() }
        for _ in 0..<iterations { blackHole(try locator.resolve(MemoryStore.self)) }
    default:
        fail("unknown scenario \(arguments[1])")
    }
} catch {
    fail("scenario failed: \(error)")
}
