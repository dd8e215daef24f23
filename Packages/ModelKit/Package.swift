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
    name: "ModelKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ModelKit", targets: ["ModelKit"]),
        // For test targets only: a seeded random number generator, so property-style tests repeat exactly.
        .library(name: "ModelKitTesting", targets: ["ModelKitTesting"]),
        // For test targets only: ChildProcess, for tests that start other programs (openssl, a server, the apps).
        .library(name: "ProcessTesting", targets: ["ProcessTesting"]),
    ],
    targets: [
        .target(name: "ModelKit", swiftSettings: sharedSwiftSettings),
        .target(name: "ModelKitTesting", swiftSettings: sharedSwiftSettings),
        .target(name: "ProcessTesting", dependencies: ["ModelKitTesting"], swiftSettings: sharedSwiftSettings),
        .testTarget(
            name: "ModelKitTests",
            dependencies: ["ModelKit", "ModelKitTesting", "ProcessTesting"],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
