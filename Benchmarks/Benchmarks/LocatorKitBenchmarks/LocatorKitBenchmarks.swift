import Benchmark
import Dispatch
import LocatorKit
import Swinject

// LocatorKit against Swinject 2.10.0, in the same process and run. From the repository root:
//   cd Benchmarks && swift package --disable-sandbox --scratch-path ../.build-bench-locator benchmark \
//       --target LocatorKitBenchmarks
// Instruction counts come from callgrind instead: Packages/LocatorKit/Scripts/callgrind.sh.

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

func makeLocator() throws(LocatorError) -> Locator {
    let locator = Locator()
    try locator.register((any Logging).self) { _ in ConsoleLogger() }
    try locator.register((any Logging).self, name: "named") { _ in ConsoleLogger() }
    try locator.register((any Storing).self) { _ in MemoryStore() }
    try locator.register(Handler.self, lifetime: .transient) { r in
        Handler(logger: try r.resolve(), store: try r.resolve())
    }
    _ = try locator.resolve((any Logging).self)
    _ = try locator.resolve((any Logging).self, name: "named")
    _ = try locator.resolve((any Storing).self)
    return locator
}

func makeContainer() -> Swinject.Container {
    let container = Swinject.Container()
    container.register((any Logging).self) { _ in ConsoleLogger() }.inObjectScope(.container)
    container.register((any Logging).self, name: "named") { _ in ConsoleLogger() }.inObjectScope(.container)
    container.register((any Storing).self) { _ in MemoryStore() }.inObjectScope(.container)
    container.register(Handler.self) { r in
        Handler(logger: r.resolve((any Logging).self)!, store: r.resolve((any Storing).self)!)
    }.inObjectScope(.transient)
    _ = container.resolve((any Logging).self)
    _ = container.resolve((any Logging).self, name: "named")
    _ = container.resolve((any Storing).self)
    return container
}

/// Runs `body` `iterations` times on each of two threads at once.
func onTwoThreads(iterations: Int, _ body: @escaping @Sendable () -> Void) {
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<iterations { body() }
    }
}

/// Swinject's synchronized resolver is documented as thread-safe but is not `Sendable`.
struct SynchronizedSwinject: @unchecked Sendable {
    // @unchecked Sendable: `Container.synchronize()` guards every resolve with its own recursive lock.
    let resolver: any Swinject.Resolver
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // Allocations repeat from run to run (a resolve of an existing instance makes none), so they are what
        // `Scripts/bench --check` holds to the committed thresholds.
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )
    let container = makeContainer()
    let synchronized = SynchronizedSwinject(resolver: container.synchronize())
    guard let locator = try? makeLocator(), let frozen = try? makeLocator() else { return }
    frozen.freeze()

    Benchmark("Singleton: LocatorKit") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try locator.resolve((any Logging).self)) }
    }
    Benchmark("Singleton: LocatorKit frozen") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try frozen.resolve((any Logging).self)) }
    }
    Benchmark("Singleton: Swinject") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(container.resolve((any Logging).self)) }
    }
    Benchmark("Singleton: Swinject synchronized") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(synchronized.resolver.resolve((any Logging).self)) }
    }
    Benchmark("Named singleton: LocatorKit") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try locator.resolve((any Logging).self, name: "named")) }
    }
    Benchmark("Named singleton: Swinject") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(container.resolve((any Logging).self, name: "named")) }
    }
    Benchmark("Transient with 2 dependencies: LocatorKit") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try locator.resolve(Handler.self)) }
    }
    Benchmark("Transient with 2 dependencies: Swinject") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Handler.self)) }
    }
    Benchmark("Miss: LocatorKit") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try? locator.resolve(Unregistered.self)) }
    }
    Benchmark("Miss: Swinject", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Unregistered.self)) }
    }
    Benchmark("Two threads, one singleton: LocatorKit") { benchmark in
        onTwoThreads(iterations: benchmark.scaledIterations.count) {
            blackHole(try? locator.resolve((any Logging).self))
        }
    }
    Benchmark("Two threads, one singleton: LocatorKit frozen") { benchmark in
        onTwoThreads(iterations: benchmark.scaledIterations.count) {
            blackHole(try? frozen.resolve((any Logging).self))
        }
    }
    Benchmark("Two threads, one singleton: Swinject synchronized") { benchmark in
        onTwoThreads(iterations: benchmark.scaledIterations.count) {
            blackHole(synchronized.resolver.resolve((any Logging).self))
        }
    }
}
