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

let package = Package(
    name: "Adapters",
    platforms: [.macOS(.v15)],
    products: [
        // StoreKitLite as RequestKit's persistent cache store.
        .library(name: "RequestStoreCache", targets: ["RequestStoreCache"]),
        // Callbacks with a completion queue and a cancel token, protocol-keyed and named lookup.
        .library(name: "ServiceShapes", targets: ["ServiceShapes"]),
        // LocatorKit modules for a store chosen by URL and an HTTP client, with their lifecycle services.
        .library(name: "ServiceModules", targets: ["ServiceModules"]),
    ],
    dependencies: [
        .package(path: "../ModelKit"),
        .package(path: "../LocatorKit"),
        .package(path: "../RequestKit"),
        .package(path: "../StoreKitLite"),
        // HTTP field and method names: cache keys read back from the file, and the tests.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The modules' lifecycle services, and their loggers.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Module settings read from environment variables, files or flags.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "RequestStoreCache",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "ServiceShapes",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "ServiceModules",
            dependencies: [
                "RequestStoreCache",
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "StoreKitLitePostgres", package: "StoreKitLite"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ServiceModulesTests",
            dependencies: [
                "ServiceModules",
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
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RequestStoreCacheTests",
            dependencies: [
                "RequestStoreCache",
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ServiceShapesTests",
            dependencies: [
                "ServiceShapes",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "LocatorKit", package: "LocatorKit"),
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
                .product(name: "StoreKitLite", package: "StoreKitLite"),
                .product(name: "StoreKitLiteSQLite", package: "StoreKitLite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
