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
    name: "LocatorKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocatorKit", targets: ["LocatorKit"]),
        .library(name: "LocatorKitTesting", targets: ["LocatorKitTesting"]),
    ],
    targets: [
        .target(name: "LocatorKit", dependencies: ["CLocatorKitThread"], swiftSettings: sharedSwiftSettings),
        // A C11 thread-local slot: cheaper than `pthread_getspecific` on every factory run. Internal only.
        .target(name: "CLocatorKitThread"),
        .target(name: "LocatorKitTesting", dependencies: ["LocatorKit"], swiftSettings: sharedSwiftSettings),
        .testTarget(
            name: "LocatorKitTests",
            dependencies: ["LocatorKit", "LocatorKitTesting"],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
