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

// fleetd's v2 read endpoints written the way Vapor's documentation teaches (a Fluent `Model`, `Content`), on SQLite
// or PostgreSQL, the peer `Scripts/bench-fleetd` compares fleetd with. A package of its own, apart from `Benchmarks/`, so that Vapor and
// Fluent (minutes of build time) are built only by that script, never by the other benchmarks.
let package = Package(
    name: "VaporBaseline",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The server framework and ORM of the comparison, with Fluent's SQLite and PostgreSQL drivers.
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "vapor-baseline",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ],
            path: "Sources/VaporBaseline",
            swiftSettings: sharedSwiftSettings
        )
    ],
    swiftLanguageModes: [.v6]
)
