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
    name: "StoreKitLite",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StoreKitLite", targets: ["StoreKitLite"]),
        .library(name: "StoreKitLiteSQLite", targets: ["StoreKitLiteSQLite"]),
        .library(name: "StoreKitLitePostgres", targets: ["StoreKitLitePostgres"]),
        .library(name: "StoreKitLiteTesting", targets: ["StoreKitLiteTesting"]),
    ],
    dependencies: [
        // Shared value types: typed IDs, coder settings.
        .package(path: "../ModelKit"),
        // The SQLite backend: DatabasePool, WAL, statement API (system libsqlite3).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The PostgreSQL backend: PostgresClient (connection pool), transactions, bound parameters.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The optional `Logger` the SQLite backend logs to, and the recording handler of the testing module.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The spans operations start when a tracer is installed or passed; `InMemoryTracing` for the tests.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "StoreKitLite",
            dependencies: [
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "StoreKitLiteSQLite",
            dependencies: [
                "StoreKitLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "StoreKitLitePostgres",
            dependencies: [
                "StoreKitLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "StoreKitLiteTesting",
            dependencies: [
                "StoreKitLite",
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "StoreKitLiteTests",
            dependencies: [
                "StoreKitLite",
                "StoreKitLiteSQLite",
                "StoreKitLitePostgres",
                "StoreKitLiteTesting",
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Reads the change log's table directly.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Records the spans of the tracing tests.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
