import AsyncHTTPClient
import Foundation
import HTTPTypes
import InMemoryTracing
import NIOCore
import NIOHTTP1
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import RequestStoreCache

// A loop over RequestKit's request path, with no network or against a loopback server, for `perf record` (the
// benchmark runner's own work hides it in a profile of the benchmark process):
//   cd Benchmarks && swift build -c release --scratch-path ../.build-bench --product RequestKitProfile
//   perf record -g ../.build-bench/release/RequestKitProfile 2000000 [cache|filecache|chain]

/// Answers every request at once with the same status-200 response.
struct CannedTransport: Transport {
    let body = Data(repeating: 0x61, count: 1024)
    let cacheable: Bool

    func send(_ request: ClientRequest) async throws -> ClientResponse {
        var fields = HTTPFields()
        // Room for `Cache-Status`, as the AsyncHTTPClient transport leaves.
        fields.reserveCapacity(4)
        fields[.contentType] = "application/octet-stream"
        fields[.contentLength] = String(body.count)
        if cacheable { fields[.cacheControl] = "max-age=3600" }
        return ClientResponse(
            status: .ok,
            headerFields: fields,
            body: ClientResponse.Body(data: body),
            url: request.url
        )
    }
}

/// A step of a user's that passes every request on unchanged.
struct PassThroughStep: Middleware {
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        try await next(request)
    }
}

// `RequestKitProfile N` loops N GETs; `… N cache` answers them from a fresh cache entry; `… N chain` sends them
// through the duplicate policy, the cache (a miss: the answer carries no freshness), retry and authentication;
// `… N parallel` loops them on two tasks at once (on two cores, the time per GET halves unless the tasks contend for
// shared memory, such as reference counts of objects both use); `… N send` sends a request made once through
// `RequestClient.send(_:)`.
let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let mode = CommandLine.arguments.dropFirst(2).first
var configuration = RequestClient.Configuration()
if mode == "cache" || mode == "chain" || mode == "miss" {
    configuration.cache = HTTPCache(store: MemoryCacheStore())
}
// `… N filecache` answers them from a fresh entry of a StoreKitLiteCacheStore in a temporary SQLite file.
if mode == "filecache" {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).sqlite")
    configuration.cache = HTTPCache(store: try await StoreKitLiteCacheStore.open(path: path.path))
}
if mode == "chain" || mode == "retry" {
    configuration.retryPolicy = RetryPolicy()
}
if mode == "chain" || mode == "auth" {
    configuration.authenticator = BearerTokenAuthenticator(token: "profile-token") { _ in "profile-token-2" }
}
// `… N step` sends them through one pass-through `Middleware` of a user's, written as the middleware article shows.
if mode == "step" {
    configuration.middleware = [PassThroughStep()]
}
// `… N traced` records a request span and an attempt span for each with swift-distributed-tracing's in-memory
// tracer (which keeps every span: drop them now and then with `popFinishedSpans()`).
let tracer = InMemoryTracer(recordInjections: false, recordExtractions: false)
if mode == "traced" {
    configuration.tracer = tracer
}
let client = RequestClient(
    environment: try ServiceEnvironment(name: "canned", baseURL: "http://127.0.0.1/"),
    transport: CannedTransport(cacheable: mode == "cache" || mode == "filecache"),
    configuration: configuration
)
// `… N first`, `… N firsthit` and `… N firstfilehit` time, as the benchmark rows do, only the second GET of a new
// client each time: through the canned transport, or the first hit on an answer the first GET stored (in memory or
// in a new file).
if mode == "first" || mode == "firsthit" || mode == "firstfilehit" {
    let elapsed = try await Task.detached {
        var total = Duration.zero
        let clock = ContinuousClock()
        for _ in 0..<count {
            var configuration = RequestClient.Configuration()
            if mode == "firsthit" { configuration.cache = HTTPCache(store: MemoryCacheStore()) }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString)")
            if mode == "firstfilehit" {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let path = folder.appendingPathComponent("cache.sqlite").path
                configuration.cache = HTTPCache(store: try await StoreKitLiteCacheStore.open(path: path))
            }
            defer { try? FileManager.default.removeItem(at: folder) }
            let client = RequestClient(
                environment: try ServiceEnvironment(name: "canned", baseURL: "http://127.0.0.1/"),
                transport: CannedTransport(cacheable: mode != "first"),
                configuration: configuration
            )
            _ = try await client.get("bytes")
            total += try await clock.measure { _ = try await client.get("bytes") }
        }
        return total
    }.value
    print("\(count) second GETs, \(elapsed / count) each")
    exit(0)
}
/// An in-process loopback server that answers every request with 1 KiB.
func startLoopbackServer() async throws -> TestServer {
    let body = Data(repeating: 0x61, count: 1024)
    return try await TestServer.start(maximumRecordedBodySize: 0) { _ in
        TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .data(body))
    }
}

/// The settings a default `AsyncHTTPClientTransport` gives its client, for a raw AsyncHTTPClient.
func rawSettings() -> HTTPClient.Configuration {
    let defaults = AsyncHTTPClientTransport.Configuration()
    var settings = HTTPClient.Configuration()
    settings.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(60))
    settings.redirectConfiguration = .follow(max: defaults.maximumRedirects, allowCycles: false)
    settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = defaults.maximumConnectionsPerHost
    settings.decompression = .disabled
    return settings
}

/// A GET of `url` with the header fields a RequestClient sends by default, made once for the transport alone.
func bytesRequest(_ url: URL) -> ClientRequest {
    var fields = HTTPFields()
    fields[.userAgent] = RequestKitVersion.userAgent
    fields[.acceptEncoding] = ResponseDecompression.supportedEncodings.joined(separator: ", ")
    fields[.accept] = "*/*"
    return ClientRequest(method: .get, url: url, headerFields: fields, operation: "GET /bytes")
}

/// The header fields RequestKit sends by default, for a raw AsyncHTTPClient.
func rawHeaders() -> HTTPHeaders {
    [
        "User-Agent": RequestKitVersion.userAgent,
        "Accept-Encoding": ResponseDecompression.supportedEncodings.joined(separator: ", "),
        "Accept": "*/*",
    ]
}

// `… N x8raw|x8rawsettings|x8transport|x8send|x8client` repeat the interleaved 8-concurrent comparison N times, each
// with fresh clients: raw AsyncHTTPClient against a second raw client (with AsyncHTTPClientTransport's settings for
// `x8rawsettings`), against the transport alone, against `RequestClient.send(_:)` of a request made once, or against
// a RequestClient's `get`. It prints the median throughput ratio.
if let variant = mode, variant.hasPrefix("x8") {
    let server = try await startLoopbackServer()
    let settings = rawSettings()
    var transportSettings = settings
    transportSettings.redirectConfiguration = .disallow
    transportSettings.connectionPool.retryConnectionEstablishment = false
    let url = server.baseURL.appending(path: "bytes")
    let environment = try ServiceEnvironment(name: "loopback", baseURL: server.baseURL)
    let headers = rawHeaders()
    // The transport's request is made once, as the raw client's header fields are.
    let transportRequest = bytesRequest(url)
    let ratios = try await Task.detached { () -> [Double] in
        var ratios: [Double] = []
        let clock = ContinuousClock()
        for iteration in 0..<count {
            let raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
            let transport = AsyncHTTPClientTransport()
            let other = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: variant == "x8rawsettings" ? transportSettings : settings
            )
            let client = RequestClient(environment: environment, transport: transport)
            @Sendable func rawGet(_ httpClient: HTTPClient) async throws {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers = headers
                let response = try await httpClient.execute(request, timeout: .seconds(60))
                _ = Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
            }
            @Sendable func otherGet() async throws {
                switch variant {
                case "x8raw", "x8rawsettings":
                    try await rawGet(other)
                case "x8transport":
                    let response = try await transport.send(transportRequest)
                    _ = try await response.body.collect(upTo: 1 << 24)
                case "x8send":
                    let response = try await client.send(transportRequest)
                    _ = try await response.body.collect(upTo: 1 << 24)
                default:
                    _ = try await client.get("bytes")
                }
            }
            func batch(_ count: Int, _ work: @escaping @Sendable () async throws -> Void) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 { group.addTask { for _ in 0..<count { try await work() } } }
                    try await group.waitForAll()
                }
            }
            let rawFirst = iteration.isMultiple(of: 2)
            try await rawFirst ? batch(2, { try await rawGet(raw) }) : batch(2, otherGet)
            try await rawFirst ? batch(2, otherGet) : batch(2, { try await rawGet(raw) })
            var rawTime = Duration.zero
            var otherTime = Duration.zero
            for turn in 0..<4 {  // A B B A, as the benchmark does
                if (turn == 0 || turn == 3) == rawFirst {
                    rawTime += try await clock.measure { try await batch(10, { try await rawGet(raw) }) }
                } else {
                    otherTime += try await clock.measure { try await batch(10, otherGet) }
                }
            }
            ratios.append(rawTime / otherTime)
            try await raw.shutdown()
            try await other.shutdown()
            try await transport.shutdown()
        }
        return ratios.sorted()
    }.value
    print("\(variant): throughput ratio, median of \(count): \(ratios.isEmpty ? 0 : ratios[ratios.count / 2])")
    try await server.shutdown()
    exit(0)
}
// `… N c8raw|c8transport|c8send|c8client` run N batches of 8 concurrent tasks doing 20 GETs each through one kind only
// (raw AsyncHTTPClient, the transport alone, or a RequestClient), on one warm client, and print the wall time per
// GET: under `perf stat`, the CPU time and thread switches per GET of each kind apart.
if let variant = mode, variant.hasPrefix("c8") {
    let server = try await startLoopbackServer()
    let raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: rawSettings())
    let transport = AsyncHTTPClientTransport()
    let client = RequestClient(
        environment: try ServiceEnvironment(name: "loopback", baseURL: server.baseURL),
        transport: transport
    )
    let url = server.baseURL.appending(path: "bytes")
    let headers = rawHeaders()
    let transportRequest = bytesRequest(url)
    @Sendable func get() async throws {
        switch variant {
        case "c8raw":
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers = headers
            let response = try await raw.execute(request, timeout: .seconds(60))
            _ = Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
        case "c8transport":
            let response = try await transport.send(transportRequest)
            _ = try await response.body.collect(upTo: 1 << 24)
        case "c8send":
            let response = try await client.send(transportRequest)
            _ = try await response.body.collect(upTo: 1 << 24)
        default:
            _ = try await client.get("bytes")
        }
    }
    let elapsed = try await Task.detached {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 { group.addTask { for _ in 0..<20 { try await get() } } }
                    try await group.waitForAll()
                }
            }
        }
    }.value
    print("\(count * 160) GETs 8 at a time (\(variant)), \(elapsed / (count * 160)) each")
    try await (raw.shutdown as () async throws -> Void)()
    try await transport.shutdown()
    try await server.shutdown()
    exit(0)
}
// `… N loopback`, `… N loopbacktransport` and `… N loopbackraw` loop N GETs of 1 KiB from an in-process loopback
// server, through RequestKit on AsyncHTTPClient, through the transport alone (its request made once), or through
// AsyncHTTPClient alone with the same settings and header fields, one at a time: compare them under `perf stat` or
// `perf record` for where RequestKit's share of a real request goes.
if mode == "loopback" || mode == "loopbackraw" || mode == "loopbacktransport" {
    let server = try await startLoopbackServer()
    let transport = AsyncHTTPClientTransport()
    let raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: rawSettings())
    let headers = rawHeaders()
    let client = RequestClient(
        environment: try ServiceEnvironment(name: "loopback", baseURL: server.baseURL),
        transport: transport
    )
    let url = server.baseURL.appending(path: "bytes").absoluteString
    let transportRequest = bytesRequest(server.baseURL.appending(path: "bytes"))
    let elapsed = try await Task.detached {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                if mode == "loopback" {
                    _ = try await client.get("bytes")
                } else if mode == "loopbacktransport" {
                    let response = try await transport.send(transportRequest)
                    _ = try await response.body.collect(upTo: 1 << 24)
                } else {
                    var request = HTTPClientRequest(url: url)
                    request.headers = headers
                    let response = try await raw.execute(request, timeout: .seconds(60))
                    _ = Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
                }
            }
        }
    }.value
    print("\(count) loopback GETs (\(mode ?? "")), \(elapsed / count) each")
    try await (raw.shutdown as () async throws -> Void)()
    try await transport.shutdown()
    try await server.shutdown()
    exit(0)
}
// `… N stepratio` times N GETs in chunks of 10,000, alternating between a client with one pass-through step and one
// without, in one process, and prints the median ratio of a chunk's time with the step to the time without: a
// steadier figure for the step's cost than two processes timed apart.
if mode == "stepratio" {
    var stepped = RequestClient.Configuration()
    stepped.middleware = [PassThroughStep()]
    let environment = try ServiceEnvironment(name: "canned", baseURL: "http://127.0.0.1/")
    let plain = RequestClient(environment: environment, transport: CannedTransport(cacheable: false))
    let withStep = RequestClient(
        environment: environment,
        transport: CannedTransport(cacheable: false),
        configuration: stepped
    )
    let ratios = try await Task.detached { () -> [Double] in
        let clock = ContinuousClock()
        let chunk = 10_000
        var ratios: [Double] = []
        for round in 0..<max(1, count / (2 * chunk)) {
            func time(_ client: RequestClient) async throws -> Duration {
                try await clock.measure { for _ in 0..<chunk { _ = try await client.get("bytes") } }
            }
            // A B then B A, so that neither always runs second.
            let (first, second) = round.isMultiple(of: 2) ? (plain, withStep) : (withStep, plain)
            let firstTime = try await time(first)
            let secondTime = try await time(second)
            let (plainTime, stepTime) = round.isMultiple(of: 2) ? (firstTime, secondTime) : (secondTime, firstTime)
            ratios.append(stepTime / plainTime)
        }
        return ratios.sorted()
    }.value
    print("\(ratios.count) rounds, step ÷ plain, median \(ratios[ratios.count / 2])")
    exit(0)
}
// Off the main actor, so that no request hops between the main thread and the pool.
let elapsed = try await Task.detached {
    try await ContinuousClock().measure {
        if mode == "parallel" {
            // Two tasks at once on the same client: on two cores, twice the GETs per second unless they contend.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask { for _ in 0..<count / 2 { _ = try await client.get("bytes") } }
                }
                try await group.waitForAll()
            }
        } else if mode == "send" {
            // The lowest level: a request made once, sent through the client and its body collected.
            let url = try client.environment.currentEnvironment.url(for: "bytes")
            let request = ClientRequest(method: .get, url: url, operation: "GET")
            for _ in 0..<count { _ = try await client.send(request).body.collect(upTo: 1 << 24) }
        } else if mode == "traced" {
            for index in 0..<count {
                _ = try await client.get("bytes")
                if index % 1000 == 999 { _ = tracer.popFinishedSpans() }
            }
        } else {
            for _ in 0..<count { _ = try await client.get("bytes") }
        }
    }
}.value
print("\(count) GETs, \(elapsed / count) each")
