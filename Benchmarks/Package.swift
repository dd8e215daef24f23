// swift-tools-version: 6.2
import PackageDescription

// MARK: - Shared settings (identical in every manifest; Scripts/check-settings compares them)
let sharedSwiftSettings: [SwiftSetting] = [
    // SE-0335: existential types are spelled `any P`.
    .enableUpcomingFeature("ExistentialAny"),
    // SE-0444: a member is visible only where its defining module is imported.
    .enableUpcomingFeature("MemberImportVisibility"),
    // SE-0409: imports are internal unless marked `public import`.
    .enableUpcomingFeature("InternalImportsByDefault"),
]
// MARK: - End of shared settings

// Benchmarks are a nested package so that the benchmark framework and the comparison baselines (Swinject)
// never enter the product graph. Run them with `Scripts/bench` from the repository root.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The benchmark runner; MallocInterposer is the only trait that builds here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Baseline for LocatorKit comparisons only.
        .package(url: "https://github.com/Swinject/Swinject", from: "2.10.0"),
        .package(path: "../Packages/ModelKit"),
        .package(path: "../Packages/LocatorKit"),
        // StoreKitLite, and GRDB as its comparison baseline (the raw C API comes through GRDBSQLite).
        .package(path: "../Packages/StoreKitLite"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Raw postgres-nio (COPY FROM STDIN, multi-row INSERTs, plain queries): StoreKitLite on PostgreSQL's baseline.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // RequestKit, and raw AsyncHTTPClient (with NIO for its byte buffers) as its comparison baseline.
        .package(path: "../Packages/RequestKit"),
        // StoreKitLite as RequestKit's persistent cache, measured against the in-memory cache.
        .package(path: "../Packages/Adapters"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The bare-Hummingbird baseline and the floor fleetd's throughput is compared with (`Scripts/bench-fleetd`).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The in-memory tracer, for what tracing costs a request.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .executableTarget(
            name: "ModelKitBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ModelKit", package: "ModelKit"),
            ],
            path: "Benchmarks/ModelKitBenchmarks",
            swiftSettings: sharedSwiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LocatorKitBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "Swinject", package: "Swinject"),
            ],
            path: "Benchmarks/LocatorKitBenchmarks",
            swiftSettings: sharedSwiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LocatorKitCallgrind",
            dependencies: [
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "Swinject", package: "Swinject"),
            ],
            path: "LocatorKitCallgrind",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "StoreKitLiteBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/StoreKitLiteBenchmarks",
            swiftSettings: sharedSwiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Needs a server: STOREKITLITE_POSTGRES_URL (Scripts/postgres run -- …); without it, it measures nothing.
        .executableTarget(
            name: "StoreKitLitePostgresBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLitePostgres", package: "StoreKitLite"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/StoreKitLitePostgresBenchmarks",
            swiftSettings: sharedSwiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RequestKitBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "RequestStoreCache", package: "Adapters"),
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/RequestKitBenchmarks",
            swiftSettings: sharedSwiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // RequestKit's request path in a loop, for a profiler (no benchmark runner around it).
        .executableTarget(
            name: "RequestKitProfile",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "RequestStoreCache", package: "Adapters"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Benchmarks/RequestKitProfile",
            swiftSettings: sharedSwiftSettings
        ),
        // The longest single call of a persistent HTTP cache of 10,000 answers while it evicts, and opening it.
        .executableTarget(
            name: "RequestStoreCachePauses",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestStoreCache", package: "Adapters"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                // The raw SQLite C API, for the control phase.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "RequestStoreCachePauses",
            swiftSettings: sharedSwiftSettings
        ),
        // A bare Hummingbird server answering fleetd's routes with constants: the ceiling of fleetd's throughput.
        .executableTarget(
            name: "fleetd-baseline",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "FleetdBaseline",
            swiftSettings: sharedSwiftSettings
        ),
        // fleetd's v2 reads written by hand on Hummingbird and the raw sqlite3 C API: the floor of fleetd's cost.
        .executableTarget(
            name: "fleetd-floor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "FleetdFloor",
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
