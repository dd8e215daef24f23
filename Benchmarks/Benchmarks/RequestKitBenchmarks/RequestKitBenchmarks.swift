import AsyncHTTPClient
import Benchmark
import Foundation
import HTTPTypes
import ModelKit
import NIOCore
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting

// RequestKit against raw AsyncHTTPClient on the same in-process loopback server, in the same run. Run from the
// repository root:
//   cd Benchmarks && swift package --disable-sandbox --scratch-path ../.build-bench-requestkit benchmark \
//       --target RequestKitBenchmarks
// Quote the ratios between each pair, not absolute times.

struct Vehicle: Codable, Sendable {
    var plate: String
    var make: String
    var modelYear: Int
    var mileage: Double
}

/// 1 KiB of bytes, and 50 vehicles as JSON (about 4 KiB).
let smallBody = Data(repeating: 0x61, count: 1024)
let vehiclesJSON: Data = {
    let vehicles = (0..<50).map {
        Vehicle(plate: "B-AB \($0)", make: "Volvo", modelYear: 2000 + $0 % 25, mileage: 12.5)
    }
    return (try? JSONEncoder().encode(vehicles)) ?? Data()
}()
let gibibyte: Int64 = 1 << 30

let handler: TestServer.Handler = { request in
    switch request.path {
    case "/bytes":
        return TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .data(smallBody))
    case "/vehicles":
        return TestResponse(headers: [("Content-Type", "application/json")], body: .data(vehiclesJSON))
    case "/gib":
        return TestResponse(
            headers: [("Content-Type", "application/octet-stream")],
            body: .generated(byte: 7, count: gibibyte)
        )
    default:
        return TestResponse(status: 204)
    }
}

/// Runs `body` with a loopback server that keeps no upload bodies, a raw HTTPClient and a RequestClient.
func withSetup(_ body: (TestServer, HTTPClient, RequestClient) async throws -> Void) async throws {
    try await TestServer.withTestServer(maximumRecordedBodySize: 0, handler: handler) { server in
        let raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environment = try ServiceEnvironment(name: "bench", baseURL: server.baseURL)
                try await body(server, raw, RequestClient(environment: environment, transport: transport))
            }
            try await raw.shutdown()
        } catch {
            try? await raw.shutdown()
            throw error
        }
    }
}

func rawGet(_ client: HTTPClient, _ url: String) async throws -> Data {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
    return Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
}

/// Resident set size now and at its peak since the last reset, in bytes (Linux `/proc/self/status`).
func residentMemory() -> (current: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Int {
        let line = status.split(separator: "\n").first { $0.hasPrefix(key) } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }
    return (value("VmRSS:"), value("VmHWM:"))
}

/// Resets the peak resident set size to the current one.
func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

func concurrently(_ tasks: Int, _ perTask: Int, _ work: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<perTask { try await work() }
            }
        }
        try await group.waitForAll()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        maxDuration: .seconds(4),
        maxIterations: 5_000
    )

    Benchmark("GET 1 KiB: raw AHC") { benchmark in
        try await withSetup { server, raw, _ in
            let url = server.baseURL.appending(path: "bytes").absoluteString
            _ = try await rawGet(raw, url)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try await rawGet(raw, url)) }
            benchmark.stopMeasurement()
        }
    }

    Benchmark("GET 1 KiB: RequestKit") { benchmark in
        try await withSetup { _, _, client in
            _ = try await client.get("bytes")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try await client.get("bytes")) }
            benchmark.stopMeasurement()
        }
    }

    Benchmark("GET 50 vehicles decoded: raw AHC + ModelCoding") { benchmark in
        try await withSetup { server, raw, _ in
            let url = server.baseURL.appending(path: "vehicles").absoluteString
            _ = try await rawGet(raw, url)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try ModelCoding.decode([Vehicle].self, from: try await rawGet(raw, url)))
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark("GET 50 vehicles decoded: RequestKit") { benchmark in
        try await withSetup { _, _, client in
            _ = try await client.get("vehicles", as: [Vehicle].self)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try await client.get("vehicles", as: [Vehicle].self)) }
            benchmark.stopMeasurement()
        }
    }

    for tasks in [8, 64] {
        Benchmark(
            "GET 1 KiB x\(tasks) concurrent (\(tasks * 20) requests): raw AHC",
            configuration: .init(maxIterations: 200)
        ) { benchmark in
            try await withSetup { server, raw, _ in
                let url = server.baseURL.appending(path: "bytes").absoluteString
                try await concurrently(tasks, 2) { _ = try await rawGet(raw, url) }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    try await concurrently(tasks, 20) { _ = try await rawGet(raw, url) }
                }
                benchmark.stopMeasurement()
            }
        }

        Benchmark(
            "GET 1 KiB x\(tasks) concurrent (\(tasks * 20) requests): RequestKit",
            configuration: .init(maxIterations: 200)
        ) { benchmark in
            try await withSetup { _, _, client in
                try await concurrently(tasks, 2) { _ = try await client.get("bytes") }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    try await concurrently(tasks, 20) { _ = try await client.get("bytes") }
                }
                benchmark.stopMeasurement()
            }
        }
    }

    let large = Benchmark.Configuration(
        metrics: [.wallClock, .custom("RSS growth (MiB)", polarity: .prefersSmaller)],
        maxDuration: .seconds(60),
        maxIterations: 2
    )

    Benchmark("Download 1 GiB to a file: RequestKit", configuration: large) { benchmark in
        try await withSetup { _, _, client in
            let destination = FileManager.default.temporaryDirectory.appending(path: "rk-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            resetPeakMemory()
            let before = residentMemory().current
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try await client.download("gib", to: destination))
            }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("RSS growth (MiB)"), (residentMemory().peak - before) >> 20)
        }
    }

    Benchmark("Upload 1 GiB multipart from a file: RequestKit", configuration: large) { benchmark in
        try await withSetup { server, _, client in
            let source = FileManager.default.temporaryDirectory.appending(path: "rk-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: source) }
            FileManager.default.createFile(atPath: source.path, contents: nil)
            let handle = try FileHandle(forWritingTo: source)
            let chunk = Data(repeating: 9, count: 1 << 20)
            for _ in 0..<1024 { try handle.write(contentsOf: chunk) }
            try handle.close()
            resetPeakMemory()
            let before = residentMemory().current
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(
                    try await client.makeRequest(.post, "upload").part(name: "file", fileURL: source).submitAsUpload(
                        true
                    )
                )
            }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("RSS growth (MiB)"), (residentMemory().peak - before) >> 20)
            precondition(server.receivedRequests.last?.bodyLength ?? 0 > Int(gibibyte), "the upload did not arrive")
        }
    }
}
