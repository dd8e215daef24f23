import Foundation
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

struct CancellationTests {
    @Test func cancellingTheTaskStopsTheTransfer() async throws {
        let arrived = Signal()
        let handler: TestServer.Handler = { _ in
            arrived.fire()
            return TestResponse(status: 200, body: .stall(prefix: Data("partial".utf8), declaredLength: 1_000))
        }
        try await withClient(handler: handler) { client, _ in
            let task = Task { try await client.get("slow") }
            await arrived.wait()
            task.cancel()
            await #expect {
                _ = try await task.value
            } throws: { error in
                (error as? RequestKitError)?.code == .cancelled
            }
        }
    }
}
