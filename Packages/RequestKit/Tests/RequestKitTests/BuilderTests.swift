import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import ProcessTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Splits a multipart body into (headers, content) pairs.
func multipartParts(_ body: Data, boundary: String) -> [(headers: String, content: Data)] {
    let delimiter = Data("--\(boundary)".utf8)
    var parts: [(String, Data)] = []
    var rest = body[...]
    while let start = rest.range(of: delimiter) {
        rest = rest[start.upperBound...]
        if rest.starts(with: Data("--".utf8)) { break }
        rest = rest.dropFirst(2)
        guard let headerEnd = rest.range(of: Data("\r\n\r\n".utf8)),
            let next = rest.range(of: delimiter, in: headerEnd.upperBound..<rest.endIndex)
        else { break }
        let headers = String(decoding: rest[rest.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        let content = Data(rest[headerEnd.upperBound..<(next.lowerBound - 2)])
        parts.append((headers, content))
        rest = rest[next.lowerBound...]
    }
    return parts
}

func temporaryFile(_ contents: Data, name: String = "file.bin") throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appending(path: "requestkit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appending(path: name)
    try contents.write(to: url)
    return url
}

struct BuilderTests {
    @Test func theBuilderSetsMethodHeadersQueryAndFormParameters() async throws {
        try await withClient(handler: TestServer.echo) { client, server in
            let response = try await client.makeRequest(.patch, "vehicles/7")
                .header(.authorization, "Bearer abc")
                .query("dryRun", "true")
                .parameters(["state": "serviced"], encoding: .form)
                .operation("vehicles.update")
                .submit(as: EchoedRequest.self)
            #expect(response.value.method == "PATCH")
            #expect(response.value.query == ["dryRun=true"])
            #expect(response.value.body == "state=serviced")
            #expect(response.value.authorization == "Bearer abc")
        }
    }

    @Test func multipartStreamsDataJSONFileAndStreamPartsWithAnExactLength() async throws {
        let fileContents = Data((0..<300_000).map { UInt8($0 % 256) })
        let file = try temporaryFile(fileContents, name: "scan.pdf")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withClient(handler: { _ in .status(201) }) { client, server in
            let response = try await client.makeRequest(.post, "documents")
                .parameters(["owner": "fleet"])
                .part(name: "note", data: Data("hello".utf8), fileName: "note.txt", mimeType: "text/plain")
                .part(name: "meta", json: ["kind": "registration", "pages": 2])
                .part(name: "scan", fileURL: file, mimeType: "application/pdf")
                .part(name: "live", length: 6, mimeType: "text/plain") {
                    AsyncThrowingStream { continuation in
                        continuation.yield(Data("abc".utf8))
                        continuation.yield(Data("def".utf8))
                        continuation.finish()
                    }
                }
                .submitAsUpload(true)
            #expect(response.status == .created)
            let request = try #require(server.receivedRequests.first)
            let contentType = try #require(request.header("content-type"))
            let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
            #expect(request.header("content-length") == "\(request.body.count)")
            #expect(request.header("transfer-encoding") == nil)
            let parts = multipartParts(request.body, boundary: boundary)
            #expect(parts.count == 5)
            #expect(parts[0].headers.contains(#"name="owner""#))
            #expect(parts[0].content == Data("fleet".utf8))
            #expect(parts[1].headers.contains(#"filename="note.txt""#))
            #expect(parts[1].headers.contains("Content-Type: text/plain"))
            #expect(parts[2].headers.contains("application/json"))
            #expect(try JSONValue(parsing: parts[2].content) == ["kind": "registration", "pages": 2])
            #expect(parts[3].headers.contains(#"filename="scan.pdf""#))
            #expect(parts[3].content == fileContents)
            #expect(parts[4].content == Data("abcdef".utf8))
        }
    }

    @Test func aStreamPartThatBreaksItsLengthPromiseFailsTheRequest() async throws {
        try await withClient(handler: { _ in .status(201) }) { client, _ in
            await #expect {
                _ = try await client.makeRequest(.post, "documents")
                    .part(name: "live", length: 10) {
                        AsyncThrowingStream { continuation in
                            continuation.yield(Data("short".utf8))
                            continuation.finish()
                        }
                    }
                    .submit()
            } throws: { error in
                (error as? RequestKitError)?.code == .invalidRequest
                    || (error as? RequestKitError)?.code == .transportFailed
            }
        }
    }

    @Test func uploadProgressReportsEveryByteSent() async throws {
        let file = try temporaryFile(Data(repeating: 7, count: 500_000))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let seen = LockedValue<[TransferProgress]>([])
        try await withClient(handler: { _ in .status(204) }) { client, server in
            _ = try await client.makeRequest(.put, "blobs/1")
                .body(try .file(file), contentType: "application/octet-stream")
                .uploadProgress { progress in seen.update { $0.append(progress) } }
                .submitAsUpload(true)
            #expect(server.receivedRequests.first?.body.count == 500_000)
        }
        let last = try #require(seen.value.last)
        #expect(last.totalBytesTransferred == 500_000)
        #expect(last.totalBytesExpected == 500_000)
        #expect(seen.value.map(\.bytesTransferred).reduce(0, +) == 500_000)
    }

    @Test(arguments: [HTTPRequest.Method.get, .head, .delete])
    func anUploadWithAMethodWithoutABodyIsATypedError(method: HTTPRequest.Method) async throws {
        try await withClient(handler: TestServer.echo) { client, server in
            await #expect {
                _ = try await client.makeRequest(method, "x").body(.data(Data("x".utf8)), contentType: "text/plain")
                    .submitAsUpload(true)
            } throws: { error in
                (error as? RequestKitError)?.code == .invalidRequest
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func gzipCompressesTheRequestBody() async throws {
        let document: JSONValue = ["vehicles": .array(Array(repeating: ["plate": "AB 123", "year": 2020], count: 200))]
        try await withClient(handler: { _ in .status(204) }) { client, server in
            _ = try await client.makeRequest(.post, "import")
                .body(.data(document.jsonData()), contentType: "application/json")
                .contentEncoding(.gzip)
                .submit()
            let request = try #require(server.receivedRequests.first)
            #expect(request.header("content-encoding") == "gzip")
            #expect(request.body.starts(with: [0x1f, 0x8b]))
            #expect(request.body.count < document.jsonData().count / 4)
            #expect(try JSONValue(parsing: try gunzip(request.body)) == document)
        }
    }

    @Test func gzipCompressesAStreamedBodyChunkedAsItIsSent() async throws {
        // Compressible chunks, an empty one, and one chunk of noise that fills zlib's 64 KiB output buffer twice.
        var chunks: [Data] = []
        for index in 0..<30 {
            let bytes: [UInt8] = (0..<10_000).map { UInt8(($0 * 7 + index) % 97) }
            chunks.append(Data(bytes))
        }
        chunks.insert(Data(), at: 3)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var noise = [UInt8](repeating: 0, count: 150_000)
        for position in noise.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise[position] = UInt8(truncatingIfNeeded: seed >> 56)
        }
        chunks.insert(Data(noise), at: 10)
        var whole = Data()
        for chunk in chunks { whole.append(chunk) }
        let body = chunks
        try await withClient(handler: { _ in .status(204) }) { client, server in
            for attempt in 0..<2 {
                _ = try await client.makeRequest(.post, "import")
                    .body(
                        .stream(length: Int64(whole.count)) {
                            AsyncThrowingStream { continuation in
                                for chunk in body { continuation.yield(chunk) }
                                continuation.finish()
                            }
                        },
                        contentType: "application/octet-stream"
                    )
                    .contentEncoding(.gzip)
                    .submit()
                let request = try #require(server.receivedRequests.last)
                #expect(server.receivedRequests.count == attempt + 1)
                #expect(request.header("content-encoding") == "gzip")
                #expect(request.header("transfer-encoding") == "chunked")
                #expect(request.header("content-length") == nil)
                #expect(request.body.starts(with: [0x1f, 0x8b]))
                #expect(request.body.count < whole.count - 250_000)
                #expect(try gunzip(request.body) == whole)
            }
        }
    }

    @Test func gzipCompressesAFileUploadAndAnEmptyStream() async throws {
        let contents = Data((0..<300_000).map { UInt8($0 % 251) })
        let file = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withClient(handler: { _ in .status(204) }) { client, server in
            _ = try await client.makeRequest(.put, "blobs/1")
                .body(try .file(file), contentType: "application/octet-stream")
                .contentEncoding(.gzip)
                .submitAsUpload(true)
            let upload = try #require(server.receivedRequests.last)
            #expect(upload.header("transfer-encoding") == "chunked")
            #expect(try gunzip(upload.body) == contents)

            _ = try await client.makeRequest(.post, "empty")
                .body(.stream(length: nil) { AsyncThrowingStream { $0.finish() } }, contentType: "text/plain")
                .contentEncoding(.gzip)
                .submit()
            let empty = try #require(server.receivedRequests.last)
            #expect(empty.body.starts(with: [0x1f, 0x8b]))
            #expect(try gunzip(empty.body).isEmpty)
        }
    }

    @Test func gzipOfAStreamPassesOnTheStreamsError() async throws {
        struct Broken: Error {}
        try await withClient(handler: { _ in .status(204) }) { client, _ in
            await #expect(throws: RequestKitError.self) {
                _ = try await client.makeRequest(.post, "import")
                    .body(
                        .stream(length: nil) {
                            AsyncThrowingStream { continuation in
                                continuation.yield(Data(repeating: 1, count: 1000))
                                continuation.finish(throwing: Broken())
                            }
                        },
                        contentType: "application/octet-stream"
                    )
                    .contentEncoding(.gzip)
                    .submit()
            }
        }
    }

    @Test func theTestServerCountsBodiesBeyondItsRecordingLimit() async throws {
        try await TestServer.withTestServer(maximumRecordedBodySize: 1000, handler: { _ in .status(204) }) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let client = RequestClient(
                    environment: try ServiceEnvironment(name: "t", baseURL: server.baseURL),
                    transport: transport
                )
                _ = try await client.makeRequest(.put, "blob")
                    .body(.data(Data(repeating: 1, count: 300_000)), contentType: "application/octet-stream")
                    .submit()
            }
            let request = try #require(server.receivedRequests.first)
            #expect(request.body.count == 1000)
            #expect(request.bodyLength == 300_000)
        }
    }
}

/// Decompresses with the system `gzip`, independently of RequestKit's zlib use.
func gunzip(_ data: Data) throws -> Data {
    let input = try temporaryFile(data, name: "body.gz")
    defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
    let result = try ChildProcess.run(
        "/bin/sh",
        arguments: ["-c", "gzip -dc \"$1\"", "sh", input.path],
        output: .collect
    )
    return Data(result.output)
}
