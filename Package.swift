// swift-tools-version: 6.0
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

        // MARK: - Server-side app dependencies

        // MARK: - Client-side app dependencies
        // Command-line parsing for the `fleet` executable.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: - Package test suites (sources live in each package)
        .testTarget(
            name: "ModelKitTests",
            dependencies: [.product(name: "ModelKit", package: "ModelKit")],
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
            ],
            path: "Packages/RequestKit/Tests/RequestKitTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "StoreKitLiteTests",
            dependencies: [
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteTesting", package: "StoreKitLite"),
            ],
            path: "Packages/StoreKitLite/Tests/StoreKitLiteTests",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "AdaptersTests",
            dependencies: [.product(name: "RequestStoreCache", package: "Adapters")],
            path: "Packages/Adapters/Tests/AdaptersTests",
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: - Apps: libraries (testable) and one @main file per executable
        .target(
            name: "FleetModels",
            dependencies: [.product(name: "ModelKit", package: "ModelKit")],
            path: "Apps/FleetModels",
            swiftSettings: sharedSwiftSettings
        ),
        // MARK: - Apps: server side

        // MARK: - Apps: tests
        .testTarget(
            name: "FleetModelsTests",
            dependencies: ["FleetModels", .product(name: "ModelKit", package: "ModelKit")],
            path: "Tests/FleetModelsTests",
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Apps/FleetCLI",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "fleet",
            dependencies: ["FleetCLI"],
            path: "Apps/fleet",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FleetClientTests",
            dependencies: [
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

        // MARK: - Cross-package suites
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "RequestStoreCache", package: "Adapters"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
