import Foundation
import HTTPTypes
import ModelKitTesting
import ProcessTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import RequestStoreCache
import Testing

/// The stack as one, across two processes: the real `fleet` binary (RequestKit on AsyncHTTPClient, its cache a
/// StoreKitLite SQLite file through `StoreKitLiteCacheStore`) fills a cache file from a loopback server that counts what it
/// is asked; this process then opens the same file and answers from it, reaching the server only to revalidate.
@Suite(.enabled(if: FleetBinary.located.url != nil, Comment(rawValue: FleetBinary.located.reason)))
struct SharedCacheFileTests {
    /// What the server answers: `/fresh` for five minutes, `/revalidated` stale at once; both with an entity tag and
    /// `304` for a matching `If-None-Match`.
    static func answer(_ request: TestRequest) -> TestResponse {
        let tag = "\"\(request.path.dropFirst())-1\""
        let cacheControl = request.path == "/fresh" ? "max-age=300" : "max-age=0"
        let headers = [("ETag", tag), ("Cache-Control", cacheControl)]
        if request.header("If-None-Match") == tag { return TestResponse(status: 304, headers: headers) }
        return TestResponse(
            headers: headers + [("Content-Type", "application/json")],
            body: .data(Data(#"{"path": "\#(request.path)"}"#.utf8))
        )
    }

    @Test func aSecondProcessAnswersFromTheCacheFileTheFirstFilled() async throws {
        let binary = try #require(FleetBinary.located.url)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shared-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("data/http-cache.sqlite")

        try await TestServer.withTestServer(handler: { Self.answer($0) }) { server in
            // The first process: `fleet request` with its data folder in `folder`.
            for path in ["/fresh", "/revalidated"] {
                let run = try await FleetBinary.run(
                    binary,
                    ["request", "GET", server.baseURL.appendingPathComponent(String(path.dropFirst())).absoluteString],
                    folder: folder
                )
                #expect(run.status == 0, "\(run.error)")
                #expect(run.output.contains(#""path": "\#(path)""#))
            }
            #expect(server.receivedRequests.map(\.path) == ["/fresh", "/revalidated"])
            #expect(FileManager.default.fileExists(atPath: cacheFile.path))

            // The second process: this one, on the same file.
            let store = try await StoreKitLiteCacheStore.open(path: cacheFile.path)
            #expect(try await store.entryCount == 2)
            try await AsyncHTTPClientTransport.withTransport { transport in
                var settings = RequestClient.Configuration()
                settings.cache = HTTPCache(store: store)
                let client = RequestClient(
                    environment: try ServiceEnvironment(name: "loopback", baseURL: server.baseURL),
                    transport: transport,
                    configuration: settings
                )
                let status = try #require(HTTPField.Name("Cache-Status"))
                func get(_ path: String) async throws -> (ClientResponse, Data) {
                    let url = server.baseURL.appendingPathComponent(path)
                    let response = try await client.send(ClientRequest(method: .get, url: url))
                    return (response, try await response.body.collect(upTo: 1 << 20))
                }

                let (fresh, freshBody) = try await get("fresh")
                #expect(fresh.status.code == 200)
                #expect(fresh.headerFields[status]?.hasPrefix("RequestKit; hit") == true)
                #expect(freshBody == Data(#"{"path": "/fresh"}"#.utf8))

                let (revalidated, revalidatedBody) = try await get("revalidated")
                #expect(revalidated.status.code == 200)
                #expect(revalidated.headerFields[status]?.contains("fwd-status=304") == true)
                #expect(revalidatedBody == Data(#"{"path": "/revalidated"}"#.utf8))
            }

            // Counted at the server: nothing for `/fresh`, one conditional request for `/revalidated`.
            let received = server.receivedRequests
            #expect(received.map(\.path) == ["/fresh", "/revalidated", "/revalidated"])
            #expect(received.last?.header("If-None-Match") == "\"revalidated-1\"")
        }
    }
}

/// The `fleet` binary the build put next to the test bundle (or `$FLEET_BINARY`), run as a child process.
enum FleetBinary {
    static let located: (url: URL?, reason: String) = {
        if let explicit = ProcessInfo.processInfo.environment["FLEET_BINARY"] {
            return (URL(fileURLWithPath: explicit), "")
        }
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("fleet")
            if FileManager.default.isExecutableFile(atPath: url.path) { return (url, "") }
        }
        return (nil, "fleet is not built next to \(products.path): run `swift build` first (or set FLEET_BINARY)")
    }()

    /// Runs `fleet` with `arguments`, its configuration and data folders under `folder`, and waits for it.
    static func run(
        _ binary: URL,
        _ arguments: [String],
        folder: URL
    ) async throws -> (status: Int32, output: String, error: String) {
        let child = try ChildProcess(
            binary.path,
            arguments: arguments,
            environment: [
                "PATH": "/usr/bin:/bin",
                "HOME": folder.appendingPathComponent("home").path,
                "FLEET_CONFIG_DIR": folder.appendingPathComponent("config").path,
                "FLEET_DATA_DIR": folder.appendingPathComponent("data").path,
                "NO_COLOR": "1",
            ],
            output: .collect,
            error: .collect
        )
        let result = await child.finished()
        let status: Int32 =
            switch result.termination {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        return (status, result.outputText, result.errorText)
    }
}
