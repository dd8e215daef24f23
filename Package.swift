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

// The umbrella manifest is the composition root of the monorepo: it depends on every package by path, declares
// the apps, and declares one test target per package whose path points into that package's own `Tests/` folder,
// so that `swift test` here runs every test of every package. It re-exports nothing.
//
// Each test target below mirrors the one in its package's manifest (same name, same sources, same dependencies):
// `cd Packages/X && swift test` runs that package alone, and `Scripts/check-settings` keeps the lists in step.

let package = Package(
    name: "ServiceEssentials",
    platforms: [.macOS(.v15)],
    dependencies: [
        // MARK: - Our packages
        // Shared value types: JSON, typed IDs, coder settings, versioned models, validation, media types.
        .package(path: "Packages/ModelKit"),
        // Service locator / dependency-injection container.
        .package(path: "Packages/LocatorKit"),
        // HTTP data request service.
        .package(path: "Packages/RequestKit"),
        // Persistence service with unit-of-work semantics.
        .package(path: "Packages/StoreKitLite"),
        // Glue between the packages.
        .package(path: "Packages/Adapters"),

        // MARK: - Server-side app dependencies (fleetd: Hummingbird, service lifecycle, Prometheus)
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Tracing: the apps' spans, and the in-memory tracer of the packages' tests.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // The apps' OTLP/HTTP span exporter. Only the OTLPHTTP trait: the default traits would build gRPC too.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // fleetd's flags, environment variables and JSON file (FleetConfiguration), and module settings read by key in
        // ServiceModulesTests. The CommandLineArguments trait brings the command-line arguments provider.
        .package(
            url: "https://github.com/apple/swift-configuration",
            from: "1.4.0",
            traits: [.defaults, "CommandLineArguments"]
        ),
        // FilePath, which swift-configuration's file provider takes (already one of its dependencies).
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        // Event loops, and the HTTP request parts fleetd's own channel handlers see (HTTPRequestPart).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),

        // MARK: - Test dependencies
        // The PostgreSQL client StoreKitLite's tests use to make and drop a schema per test.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // StoreKitLite's tests read the change log's table directly.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),

        // MARK: - Client-side app dependencies
        // Command-line parsing for the `fleet` executable.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: - Package test suites (sources live in each package)
        .testTarget(
            name: "ModelKitTests",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
            ],
            path: "Packages/ModelKit/Tests/ModelKitTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "LocatorKitTests",
            dependencies: [
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "LocatorKitTesting", package: "LocatorKit"),
            ],
            path: "Packages/LocatorKit/Tests/LocatorKitTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RequestKitTests",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Packages/RequestKit/Tests/RequestKitTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PublicMiddlewareTests",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
            ],
            path: "Packages/RequestKit/Tests/PublicMiddlewareTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "StoreKitLiteTests",
            dependencies: [
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "StoreKitLitePostgres", package: "StoreKitLite"),
                .product(name: "StoreKitLiteTesting", package: "StoreKitLite"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Reads the change log's table directly.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Records the spans of the tracing tests.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Packages/StoreKitLite/Tests/StoreKitLiteTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RequestStoreCacheTests",
            dependencies: [
                .product(name: "RequestStoreCache", package: "Adapters"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
            ],
            path: "Packages/Adapters/Tests/RequestStoreCacheTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ServiceShapesTests",
            dependencies: [
                .product(name: "ServiceShapes", package: "Adapters"),
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
            ],
            path: "Packages/Adapters/Tests/ServiceShapesTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ServiceModulesTests",
            dependencies: [
                .product(name: "ServiceModules", package: "Adapters"),
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            path: "Packages/Adapters/Tests/ServiceModulesTests",
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Apps: libraries (testable) and one @main file per executable
        .target(
            name: "FleetModels",
            dependencies: [.product(name: "ModelKit", package: "ModelKit")],
            path: "Apps/FleetModels",
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "FleetServer",
            dependencies: [
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "StoreKitLitePostgres", package: "StoreKitLite"),
                .product(name: "ServiceModules", package: "Adapters"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "FleetTelemetry",
            ],
            path: "Apps/FleetServer",
            resources: [.copy("OpenAPI")],
            swiftSettings: sharedSwiftSettings
        ),
        // What fleetd and fleet share to export their spans: swift-otel's tracer and its OTLP/HTTP exporter.
        .target(
            name: "FleetTelemetry",
            dependencies: [
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Apps/FleetTelemetry",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "fleetd",
            dependencies: ["FleetServer"],
            path: "Apps/fleetd",
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Apps: tests
        .testTarget(
            name: "FleetModelsTests",
            dependencies: ["FleetModels", .product(name: "ModelKit", package: "ModelKit")],
            path: "Tests/FleetModelsTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FleetServerTests",
            dependencies: [
                "FleetServer",
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Tests/FleetServerTests",
            swiftSettings: sharedSwiftSettings
        ),
        // MARK: - Apps: client side
        .target(
            name: "FleetClient",
            dependencies: [
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
            ],
            path: "Apps/FleetClient",
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "FleetCLI",
            dependencies: [
                "FleetClient",
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                // fleet's persistent HTTP cache, and the StoreError a file that cannot be one throws.
                .product(name: "RequestStoreCache", package: "Adapters"),
                .product(name: "ServiceModules", package: "Adapters"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "FleetTelemetry",
            ],
            path: "Apps/FleetCLI",
            swiftSettings: sharedSwiftSettings
        ),
        // The process StoreKitLite's crash tests kill with SIGKILL while it commits (IntegrationTests/StoreCrashTests).
        .executableTarget(
            name: "storekitlite-crash-writer",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "StoreKitLitePostgres", package: "StoreKitLite"),
            ],
            path: "Tests/StoreCrashWriter",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "fleet",
            dependencies: ["FleetCLI"],
            path: "Apps/fleet",
            swiftSettings: sharedSwiftSettings
        ),
        // What the apps' suites share: fleetd's HTTP contract answered in memory, and small fixtures.
        .target(
            name: "FleetTestSupport",
            dependencies: [
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
            ],
            path: "Tests/FleetTestSupport",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FleetClientTests",
            dependencies: [
                "FleetTestSupport",
                "FleetClient",
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
            ],
            path: "Tests/FleetClientTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FleetCLITests",
            dependencies: [
                "FleetTestSupport",
                "FleetCLI",
                "FleetClient",
                "FleetModels",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/FleetCLITests",
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Apps: end to end (a real fleetd process driven by fleet's command paths and v1/v2 clients)
        .testTarget(
            name: "FleetEndToEndTests",
            dependencies: [
                "FleetCLI",
                "FleetClient",
                "FleetModels",
                // Built before the tests so the suites can start the real binaries.
                "fleetd",
                "fleet",
                "FleetTestSupport",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
            ],
            path: "Tests/FleetEndToEndTests",
            swiftSettings: sharedSwiftSettings
        ),

        // A third app on the modules fleetd and fleet are built on: a sync job, kept short and compiled with the rest.
        .executableTarget(
            name: "fleet-sync",
            dependencies: [
                .product(name: "ServiceModules", package: "Adapters"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                // The transport's connect settings: fleetd away fails at once.
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                // Its flags and --help.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "docs/examples/fleet-sync",
            exclude: ["README.md"],
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Cross-package suites
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteTesting", package: "StoreKitLite"),
                .product(name: "RequestStoreCache", package: "Adapters"),
                // Built before the tests: the first of two processes sharing one cache file is the real binary.
                "fleet",
                // Built before the tests: the writer the crash tests kill.
                "storekitlite-crash-writer",
                // Built before the tests: the third app on the modules, run against a real fleetd.
                "fleet-sync",
                "fleetd",
                "FleetTestSupport",
                .product(name: "ServiceModules", package: "Adapters"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: sharedSwiftSettings
        ),
        // Compiles only while the packages' public names and Hummingbird's can be used together unqualified.
        .testTarget(
            name: "ImportTogetherTests",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "ServiceShapes", package: "Adapters"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Tests/ImportTogetherTests",
            swiftSettings: sharedSwiftSettings
        ),
        // Every public error type of the packages and the apps against the one template of docs/public-api.md.
        .testTarget(
            name: "ErrorTemplateTests",
            dependencies: [
                "FleetServer",
                "FleetClient",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteTesting", package: "StoreKitLite"),
                .product(name: "ServiceShapes", package: "Adapters"),
                .product(name: "ServiceModules", package: "Adapters"),
            ],
            path: "Tests/ErrorTemplateTests",
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
