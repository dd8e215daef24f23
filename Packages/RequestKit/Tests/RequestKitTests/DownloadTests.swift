import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

/// Serves `content` with an ETag, honouring `Range` with `If-Range`; the first full answer can stall halfway.
func rangeHandler(_ content: Data, etag: String = "\"v1\"", stallFirst: Bool = false) -> TestServer.Handler {
    let served = LockedValue(0)
    return { request in
        served.update { $0 += 1 }
        if let range = request.header("range"), range.hasPrefix("bytes="), request.header("if-range") == etag,
            let start = Int(range.dropFirst(6).dropLast())
        {
            return TestResponse(
                status: 206,
                headers: [("ETag", etag), ("Content-Range", "bytes \(start)-\(content.count - 1)/\(content.count)")],
                body: .data(content[start...])
            )
        }
        if stallFirst && served.value == 1 {
            return TestResponse(
                status: 200,
                headers: [("ETag", etag)],
                body: .stall(prefix: content.prefix(content.count / 2), declaredLength: content.count)
            )
        }
        return TestResponse(status: 200, headers: [("ETag", etag)], body: .data(content))
    }
}

struct DownloadTests {
    let content = Data((0..<400_000).map { UInt8($0 % 251) })

    @Test func aDownloadIsStreamedToTheDestinationWithProgress() async throws {
        let destination = try temporaryFile(Data("old".utf8), name: "report.bin")
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        let seen = LockedValue<[TransferProgress]>([])
        try await withClient(handler: rangeHandler(content)) { client, _ in
            let result = try await client.download(
                "report",
                to: destination,
                progress: { progress in seen.update { $0.append(progress) } }
            )
            #expect(result.totalBytes == Int64(content.count))
            #expect(!result.resumed)
        }
        #expect(try Data(contentsOf: destination) == content)
        #expect(seen.value.last?.totalBytesTransferred == Int64(content.count))
        #expect(seen.value.last?.totalBytesExpected == Int64(content.count))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
    }

    @Test func aCancelledDownloadLeavesTheDestinationUntouched() async throws {
        let destination = try temporaryFile(Data("old".utf8), name: "report.bin")
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        try await withClient(handler: rangeHandler(content, stallFirst: true)) { client, _ in
            let download = client.startDownload("report", to: destination)
            for await progress in download.progress where progress.totalBytesTransferred >= Int64(content.count / 2) {
                download.cancel()
            }
            await #expect {
                _ = try await download.result()
            } throws: { error in
                (error as? RequestKitError)?.code == .cancelled
            }
        }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        // The server sent an ETag, so the partial file stays for a later `resume: true`.
        #expect(FileManager.default.fileExists(atPath: destination.path + ".partial"))
    }

    @Test func anInterruptedDownloadResumesWithRangeAndIfRange() async throws {
        let directory = try temporaryFile(Data(), name: "unused").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "video.bin")
        try await withClient(handler: rangeHandler(content, stallFirst: true)) { client, server in
            let first = client.startDownload("video", to: destination, resume: true)
            for await progress in first.progress where progress.totalBytesTransferred >= Int64(content.count / 2) {
                first.cancel()
            }
            _ = try? await first.result()
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let partialSize = try FileManager.default.attributesOfItem(atPath: destination.path + ".partial")[.size]
            #expect((partialSize as? NSNumber)?.intValue == content.count / 2)

            let second = try await client.download("video", to: destination, resume: true)
            #expect(second.resumed)
            #expect(second.status.code == 206)
            #expect(second.totalBytes == Int64(content.count))
            let ranged = try #require(server.receivedRequests.last)
            #expect(ranged.header("range") == "bytes=\(content.count / 2)-")
            #expect(ranged.header("if-range") == "\"v1\"")
        }
        #expect(try Data(contentsOf: destination) == content)
    }

    @Test func aChangedResourceRestartsTheDownloadFromTheBeginning() async throws {
        let directory = try temporaryFile(Data(), name: "unused").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "video.bin")
        try Data(repeating: 0, count: 1000).write(to: URL(fileURLWithPath: destination.path + ".partial"))
        try "\"v0\"".write(
            to: URL(fileURLWithPath: destination.path + ".partial-validator"),
            atomically: true,
            encoding: .utf8
        )
        try await withClient(handler: rangeHandler(content)) { client, _ in
            let result = try await client.download("video", to: destination, resume: true)
            #expect(!result.resumed)
            #expect(result.status.code == 200)
        }
        #expect(try Data(contentsOf: destination) == content)
    }
}
