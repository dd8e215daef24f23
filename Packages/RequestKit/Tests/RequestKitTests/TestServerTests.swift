import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import RequestKit
import RequestKitTesting
import Testing

@testable import RequestKitTesting

struct TestServerTests {
    static let eightMiB: Int64 = 8 << 20
    /// More than one turn of the server's writes (16 pieces of 64 KiB), ending with a partial piece.
    static let overOneTurn: Int64 = (1 << 20) + 1_000

    @Test func aGeneratedBodyArrivesWholeOverLoopback() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "rk-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appending(path: "generated.bin")
        let handler: TestServer.Handler = { _ in TestResponse(body: .generated(byte: 7, count: Self.eightMiB)) }
        try await withClient(handler: handler) { client, _ in
            let result = try await client.download("generated", to: destination)
            #expect(result.totalBytes == Self.eightMiB)
        }
        let data = try Data(contentsOf: destination)
        #expect(data.count == Int(Self.eightMiB))
        #expect(data.allSatisfy { $0 == 7 })
    }

    @Test func aGeneratedBodyWaitsWhileTheChannelIsNotWritable() async throws {
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            let handler = TestServerHandler(
                handler: { _ in TestResponse(body: .generated(byte: 3, count: Self.overOneTurn)) },
                log: TestServerLog(),
                bodyLimit: 0
            )
            try channel.pipeline.syncOperations.addHandler(handler)
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080))
        channel.isWritable = false
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/generated")
        try await channel.writeInbound(HTTPServerRequestPart.head(head))
        try await channel.writeInbound(HTTPServerRequestPart.end(nil))

        // The head goes out; no piece of the body does while the client is not reading.
        let first = try await channel.waitForOutboundWrite(as: HTTPServerResponsePart.self)
        guard case .head = first else {
            Issue.record("expected the response head, got \(first)")
            return
        }
        await channel.testingEventLoop.run()
        if let early = try await channel.readOutbound(as: HTTPServerResponsePart.self) {
            Issue.record("the server wrote \(early) to a channel that is not writable")
        }

        // Writable again: the rest follows, a turn of the event loop at a time, and ends.
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        var received: Int64 = 0
        var ended = false
        for _ in 0..<1_000 where !ended {
            await channel.testingEventLoop.run()
            while let part = try await channel.readOutbound(as: HTTPServerResponsePart.self) {
                switch part {
                case .body(.byteBuffer(let buffer)):
                    #expect(buffer.readableBytesView.allSatisfy { $0 == 3 })
                    received += Int64(buffer.readableBytes)
                case .end:
                    ended = true
                default:
                    Issue.record("unexpected part \(part)")
                }
            }
        }
        #expect(ended)
        #expect(received == Self.overOneTurn)
        _ = try await channel.finish()
    }
}
