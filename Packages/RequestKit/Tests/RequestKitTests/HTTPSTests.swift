import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// The main paths again, over HTTPS with a pinned public key.
struct HTTPSTests {
    private let authority: TestCertificateAuthority
    private let pinned: AsyncHTTPClientTransport.Configuration

    init() throws {
        authority = try TestCertificateAuthority()
        var configuration = AsyncHTTPClientTransport.Configuration()
        try configuration.pinning.pin("localhost", [.publicKey(sha256: authority.serverPublicKeySHA256)])
        pinned = configuration
    }

    @Test func oneCallRequestsDecodeModelsOverHTTPS() async throws {
        defer { authority.remove() }
        try await withClient(transportConfiguration: pinned, authority: authority, handler: TestServer.echo) {
            client,
            server in
            let echo = try await client.post("vehicles", parameters: ["plate": "TLS 1"], as: EchoedRequest.self)
            #expect(echo.method == "POST")
            #expect(try JSONValue(parsing: echo.body) == ["plate": "TLS 1"])
            #expect(server.baseURL.scheme == "https")
        }
    }

    @Test func multipartUploadsStreamOverHTTPS() async throws {
        defer { authority.remove() }
        let file = try temporaryFile(Data(repeating: 42, count: 1_000_000), name: "big.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withClient(transportConfiguration: pinned, authority: authority, handler: { _ in .status(201) }) {
            client,
            server in
            let response = try await client.makeRequest(.post, "uploads")
                .part(name: "file", fileURL: file)
                .submitAsUpload(true)
            #expect(response.status == .created)
            let request = try #require(server.receivedRequests.first)
            #expect(request.header("content-length") == "\(request.body.count)")
            #expect(request.body.count > 1_000_000)
        }
    }

    @Test func downloadsResumeOverHTTPS() async throws {
        defer { authority.remove() }
        let content = Data((0..<300_000).map { UInt8($0 % 199) })
        let directory = try temporaryFile(Data(), name: "unused").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "tls.bin")
        try await withClient(
            transportConfiguration: pinned,
            authority: authority,
            handler: rangeHandler(content, stallFirst: true)
        ) { client, _ in
            let first = client.startDownload("file", to: destination, resume: true)
            for await progress in first.progress where progress.totalBytesTransferred >= Int64(content.count / 2) {
                first.cancel()
            }
            _ = try? await first.result()
            let second = try await client.download("file", to: destination, resume: true)
            #expect(second.resumed)
        }
        #expect(try Data(contentsOf: destination) == content)
    }
}
