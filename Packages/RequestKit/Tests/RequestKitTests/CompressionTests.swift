import Foundation
import HTTPTypes
import ModelKitTesting
import ProcessTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Compresses test bodies with Python's zlib, an implementation nobody on the team wrote.
enum Compressor {
    /// `format`: `gzip`, `deflate` (zlib, RFC 1950), `raw` (bare RFC 1951) or `br` (Brotli, through the
    /// `brotlicffi` module that `Scripts/install-deps` installs).
    static func compress(_ data: Data, _ format: String) throws -> Data {
        let script = """
            import sys, zlib, gzip
            data = sys.stdin.buffer.read()
            fmt = sys.argv[1]
            if fmt == "gzip":
                out = gzip.compress(data)
            elif fmt == "deflate":
                out = zlib.compress(data)
            elif fmt == "br":
                import brotlicffi
                out = brotlicffi.compress(data)
            else:
                c = zlib.compressobj(wbits=-15)
                out = c.compress(data) + c.flush()
            sys.stdout.buffer.write(out)
            """
        let result = try ChildProcess.run(
            "/usr/bin/env",
            arguments: ["python3", "-c", script, format],
            input: .bytes(Array(data)),
            output: .collect
        )
        guard result.termination.succeeded else { throw CompressorFailed() }
        return Data(result.output)
    }

    struct CompressorFailed: Error {}

    /// Whether Python can compress with Brotli here.
    static let hasBrotli: Bool = (try? compress(Data("x".utf8), "br")) != nil
}

struct CompressionTests {
    struct Vehicle: Codable, Sendable, Equatable {
        var plate: String
        var modelYear: Int
    }

    private static let vehicles = (0..<500).map { Vehicle(plate: "AB \($0)", modelYear: 2000 + $0 % 25) }

    private static func handler(_ body: Data, coding: String, chunked: Bool = false) -> TestServer.Handler {
        { _ in
            var response = TestResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Content-Encoding", coding)],
                body: .data(body)
            )
            if chunked {
                // Pieces of 100 bytes: gzip headers, blocks and trailers all end up split across chunks.
                response.body = .chunks(
                    stride(from: 0, to: body.count, by: 100).map { body.subdata(in: $0..<min($0 + 100, body.count)) }
                )
            }
            return response
        }
    }

    @Test func requestsAskForGzipAndDeflateByDefault() async throws {
        try await withClient(handler: TestServer.echo) { client, server in
            _ = try await client.get("x")
            #expect(server.receivedRequests.last?.header("accept-encoding") == "gzip, deflate, br")
        }
        var configuration = RequestClient.Configuration()
        configuration.headerFields[.acceptEncoding] = "gzip"
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, server in
            _ = try await client.get("x")
            #expect(server.receivedRequests.last?.header("accept-encoding") == "gzip")
        }
        configuration = RequestClient.Configuration()
        configuration.decompression = .disabled
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, server in
            _ = try await client.get("x")
            #expect(server.receivedRequests.last?.header("accept-encoding") == nil)
        }
    }

    @Test(arguments: [
        ("gzip", "gzip", false), ("deflate", "deflate", false), ("raw", "deflate", false),
        ("gzip", "gzip", true), ("deflate", "deflate", true), ("gzip", "x-gzip", true),
    ])
    func compressedAnswersDecodeIntoModels(format: String, coding: String, chunked: Bool) async throws {
        let json = try JSONEncoder().encode(Self.vehicles)
        let body = try Compressor.compress(json, format)
        #expect(body.count < json.count / 4)
        try await withClient(handler: Self.handler(body, coding: coding, chunked: chunked)) { client, _ in
            let decoded = try await client.get("vehicles", as: [Vehicle].self)
            #expect(decoded == Self.vehicles)
            let content = try await client.get("vehicles")
            #expect(content.headerFields[.contentEncoding] == nil)
            #expect(content.headerFields[.contentLength] == nil)
        }
    }

    @Test(.enabled(if: Compressor.hasBrotli, "needs Python's brotlicffi module (Scripts/install-deps installs it)"))
    func brotliAnswersDecodeAndCorruptOnesAreTypedErrors() async throws {
        let json = try JSONEncoder().encode(Self.vehicles)
        let body = try Compressor.compress(json, "br")
        try await withClient(handler: Self.handler(body, coding: "br", chunked: true)) { client, _ in
            let decoded = try await client.get("vehicles", as: [Vehicle].self)
            #expect(decoded == Self.vehicles)
        }
        for broken in [body.prefix(body.count / 2), Data(body.map { $0 ^ 0x33 })] {
            try await withClient(handler: Self.handler(Data(broken), coding: "br")) { client, _ in
                await #expect {
                    _ = try await client.get("vehicles")
                } throws: { error in
                    (error as? RequestKitError)?.code == .decompressionFailed
                }
            }
        }
    }

    @Test func gzipMembersOneAfterAnotherDecodeAsOneBody() async throws {
        let body = try Compressor.compress(Data("[1,2,".utf8), "gzip") + Compressor.compress(Data("3]".utf8), "gzip")
        try await withClient(handler: Self.handler(body, coding: "gzip")) { client, _ in
            let numbers = try await client.get("x", as: [Int].self)
            #expect(numbers == [1, 2, 3])
        }
    }

    @Test func aCompressedDownloadIsWrittenDecoded() async throws {
        let text = Data(String(repeating: "line of text\n", count: 50_000).utf8)
        let body = try Compressor.compress(text, "gzip")
        let folder = FileManager.default.temporaryDirectory.appending(path: "rk-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let handler: TestServer.Handler = { _ in
            TestResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: .data(body))
        }
        try await withClient(handler: handler) { client, server in
            let destination = folder.appending(path: "text.txt")
            let result = try await client.download("text", to: destination)
            #expect(try Data(contentsOf: destination) == text)
            #expect(result.totalBytes == Int64(text.count))
            // A download asks for the bytes as they are, so that a resumed range means the same bytes.
            #expect(server.receivedRequests.last?.header("accept-encoding") == "identity")
        }
    }

    @Test(arguments: ["gzip", "deflate"])
    func aCorruptStreamIsATypedError(coding: String) async throws {
        var body = try Compressor.compress(
            try JSONEncoder().encode(Self.vehicles),
            coding == "gzip" ? "gzip" : "deflate"
        )
        for index in stride(from: 20, to: body.count - 20, by: 7) { body[index] ^= 0x5A }
        try await withClient(handler: Self.handler(body, coding: coding)) { client, _ in
            await #expect {
                _ = try await client.get("x", as: [Vehicle].self)
            } throws: { error in
                (error as? RequestKitError)?.code == .decompressionFailed
            }
        }
    }

    @Test func aTruncatedStreamIsATypedError() async throws {
        let body = try Compressor.compress(try JSONEncoder().encode(Self.vehicles), "gzip")
        try await withClient(handler: Self.handler(body.prefix(body.count / 2), coding: "gzip")) { client, _ in
            await #expect {
                _ = try await client.get("x")
            } throws: { error in
                (error as? RequestKitError)?.code == .decompressionFailed
            }
        }
    }

    @Test func anUnknownCodingIsATypedErrorNotGarbage() async throws {
        try await withClient(handler: Self.handler(Data([0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3]), coding: "zstd")) {
            client,
            _ in
            await #expect {
                _ = try await client.get("x")
            } throws: { error in
                (error as? RequestKitError)?.code == .decompressionFailed
            }
        }
    }

    @Test func aDecompressionBombStopsAtTheLimitWithBoundedMemory() async throws {
        // 256 MiB of zeros compress to about 256 KiB.
        let bomb = try Compressor.compress(Data(count: 256 << 20), "gzip")
        #expect(bomb.count < 1 << 20)
        var configuration = RequestClient.Configuration()
        configuration.decompression.maximumDecodedSize = 8 << 20
        configuration.maximumBodySize = 512 << 20
        try await withClient(configuration: configuration, handler: Self.handler(bomb, coding: "gzip")) { client, _ in
            await #expect {
                _ = try await client.get("bomb")
            } throws: { error in
                let error = error as? RequestKitError
                return error?.code == .bodyTooLarge && error?.reason.contains("decompressed") == true
            }
        }
        // Without a decompression limit, the in-memory body limit still holds.
        configuration = RequestClient.Configuration()
        configuration.maximumBodySize = 4 << 20
        try await withClient(configuration: configuration, handler: Self.handler(bomb, coding: "gzip")) { client, _ in
            await #expect {
                _ = try await client.get("bomb")
            } throws: { error in
                (error as? RequestKitError)?.code == .bodyTooLarge
            }
        }
    }

    @Test func emptyBodiesWithACodingAreEmpty() async throws {
        let handler: TestServer.Handler = { _ in
            TestResponse(status: 204, headers: [("Content-Encoding", "gzip")])
        }
        try await withClient(handler: handler) { client, _ in
            let response = try await client.delete("x")
            #expect(response.status == .noContent)
        }
    }

    @Test func disabledDecompressionHandsOverTheBytesAsSent() async throws {
        let body = try Compressor.compress(Data("hello".utf8), "gzip")
        var configuration = RequestClient.Configuration()
        configuration.decompression = .disabled
        let handler: TestServer.Handler = { _ in
            TestResponse(
                status: 200,
                headers: [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")],
                body: .data(body)
            )
        }
        try await withClient(configuration: configuration, handler: handler) { client, _ in
            let response = try await client.get("x")
            guard case .data(let bytes) = response.value else {
                Issue.record("expected bytes, got \(response.value)")
                return
            }
            #expect(bytes == body)
            #expect(response.headerFields[.contentEncoding] == "gzip")
        }
    }
}
