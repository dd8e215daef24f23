import Foundation
import HTTPTypes
import RequestKit
import RequestKitTesting
import Testing

struct ResumableDownloadTests {
    let content = Data((0..<400_000).map { UInt8($0 % 251) })

    func directory() throws -> URL {
        try temporaryFile(Data(), name: "unused").deletingLastPathComponent()
    }

    @Test func aFailedDownloadWithAValidatorKeepsItsPartialFileForALaterResume() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "video.bin")
        try await withClient(handler: rangeHandler(content, stallFirst: true)) { client, server in
            // The first attempt does not ask to resume.
            let first = client.startDownload("video", to: destination)
            for await progress in first.progress where progress.totalBytesTransferred >= Int64(content.count / 2) {
                first.cancel()
            }
            _ = try? await first.result()
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let validator = try String(contentsOfFile: destination.path + ".partial-validator", encoding: .utf8)
            #expect(validator == "\"v1\"")

            let second = try await client.download("video", to: destination, resume: true)
            #expect(second.resumed)
            #expect(server.receivedRequests.last?.header("if-range") == "\"v1\"")
        }
        #expect(try Data(contentsOf: destination) == content)
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial-validator"))
    }

    @Test func aFailedDownloadWithoutAValidatorRemovesItsPartialFile() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "video.bin")
        let content = self.content
        try await withClient(handler: { _ in
            TestResponse(body: .stall(prefix: content.prefix(1000), declaredLength: content.count))
        }) { client, _ in
            let download = client.startDownload("video", to: destination)
            for await progress in download.progress where progress.totalBytesTransferred >= 1000 {
                download.cancel()
            }
            _ = try? await download.result()
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial-validator"))
    }
}

struct TextualContentTests {
    @Test(arguments: [
        "application/xml", "application/javascript", "image/svg+xml", "application/atom+xml; charset=utf-8",
        "application/yaml", "application/x-ndjson",
    ])
    func textualTypesDecodeAsText(contentType: String) async throws {
        try await withClient(handler: { _ in .text("<a>é</a>", contentType: contentType) }) { client, _ in
            let text = try await client.get("doc").value.text
            #expect(text == "<a>é</a>")
        }
        #expect(DecoderRegistry.standard.canDecode(contentType: contentType))
    }

    @Test func binaryTypesStayData() throws {
        let content = try DecoderRegistry.standard.decode(Data([0, 1]), contentType: "application/octet-stream")
        guard case .data(let data) = content else {
            Issue.record("expected data, got \(content)")
            return
        }
        #expect(data == Data([0, 1]))
    }
}
