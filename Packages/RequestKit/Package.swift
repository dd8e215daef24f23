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
    name: "RequestKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RequestKit", targets: ["RequestKit"]),
        .library(name: "RequestKitAsyncHTTPClient", targets: ["RequestKitAsyncHTTPClient"]),
        .library(name: "RequestKitTesting", targets: ["RequestKitTesting"]),
    ],
    dependencies: [
        // Shared value types: JSONValue, media types, coder settings.
        .package(path: "../ModelKit"),
        // HTTP field types for request and response values.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Logging through a handed-in Logger; metrics per endpoint and status.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Spans for requests and attempts, and `traceparent` in outgoing headers, through the installed tracer.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // The transport.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Event loops, HTTP/1 server for the test server, TLS and pinning.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // HTTP/2 stream errors, to tell a stream the server refused from one it may have processed.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // SHA-256 of pinned certificates and public keys.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // The system zlib, for gzip request bodies and gzip and deflate answers.
        .systemLibrary(name: "CRequestKitZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system Brotli decoder, for `br` answers.
        .systemLibrary(name: "CRequestKitBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .target(
            name: "RequestKit",
            dependencies: [
                "CRequestKitZlib",
                "CRequestKitBrotli",
                .product(name: "ModelKit", package: "ModelKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "RequestKitAsyncHTTPClient",
            dependencies: [
                "RequestKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "RequestKitTesting",
            dependencies: [
                "RequestKit",
                // `withClient`: a test server and a client over the real transport, in one call.
                "RequestKitAsyncHTTPClient",
                // Child processes (`openssl` for the test certificate authority).
                .product(name: "ProcessTesting", package: "ModelKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RequestKitTests",
            dependencies: [
                "RequestKit", "RequestKitAsyncHTTPClient", "RequestKitTesting",
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "ProcessTesting", package: "ModelKit"),
                // The test server's handler is driven without I/O on a testing channel as well.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // RequestKit's duplicate-request step written again from the public API alone (no `@testable`), passing
        // the built-in step's tests: proof that RequestKit's own steps need nothing a user's step cannot have.
        .testTarget(
            name: "PublicMiddlewareTests",
            dependencies: [
                "RequestKit", "RequestKitAsyncHTTPClient", "RequestKitTesting",
                .product(name: "ModelKitTesting", package: "ModelKit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
