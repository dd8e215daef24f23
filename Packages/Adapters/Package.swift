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
    ],
    dependencies: [
        .package(path: "../ModelKit"),
        .package(path: "../LocatorKit"),
        .package(path: "../RequestKit"),
        .package(path: "../StoreKitLite"),
        // HTTP field and method names: cache keys read back from the file, and the tests.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
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
        .testTarget(
            name: "AdaptersTests",
            dependencies: [
                "RequestStoreCache",
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitAsyncHTTPClient", package: "RequestKit"),
                .product(name: "RequestKitTesting", package: "RequestKit"),
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
