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
    ],
    targets: [
        .target(name: "ModelKit", swiftSettings: sharedSwiftSettings),
        .target(name: "ModelKitTesting", swiftSettings: sharedSwiftSettings),
        .testTarget(
            name: "ModelKitTests",
            dependencies: ["ModelKit", "ModelKitTesting"],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
