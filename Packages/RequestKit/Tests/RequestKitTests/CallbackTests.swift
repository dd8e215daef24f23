import Dispatch
import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

struct CallbackTests {
    private static let queueKey = DispatchSpecificKey<String>()

    @Test func successRunsOnTheCompletionQueue() async throws {
        let queue = DispatchQueue(label: "callbacks")
        queue.setSpecific(key: Self.queueKey, value: "callbacks")
        try await withClient(handler: { _ in .json(#"{"ok": true}"#) }) { client, _ in
            let (value, label) = await withCheckedContinuation { continuation in
                client.get(
                    "x",
                    completionQueue: queue,
                    success: { response in
                        continuation.resume(
                            returning: (response.value.json, DispatchQueue.getSpecific(key: Self.queueKey))
                        )
                    },
                    failure: { _ in continuation.resume(returning: (nil, nil)) }
                )
            }
            #expect(value == ["ok": true])
            #expect(label == "callbacks")
        }
    }

    @Test func failureRunsWithATypedError() async throws {
        try await withClient(handler: { _ in .status(500) }) { client, _ in
            let error = await withCheckedContinuation { continuation in
                client.request(
                    .get,
                    "x",
                    as: Vehicle.self,
                    success: { _ in continuation.resume(returning: nil as RequestKitError?) },
                    failure: { continuation.resume(returning: $0) }
                )
            }
            #expect(error?.code == .unacceptableStatus)
            #expect(error?.status == 500)
        }
    }

    @Test func cancellingTheTokenStopsTheTransfer() async throws {
        let arrived = Signal()
        let handler: TestServer.Handler = { _ in
            arrived.fire()
            return TestResponse(status: 200, body: .stall(prefix: Data("partial".utf8), declaredLength: 1_000))
        }
        try await withClient(handler: handler) { client, _ in
            let failure = Signal()
            let box = ErrorBox()
            let token = client.get(
                "slow",
                success: { _ in failure.fire() },
                failure: { error in
                    box.set(error)
                    failure.fire()
                }
            )
            await arrived.wait()
            token.cancel()
            await failure.wait()
            #expect(box.error?.code == .cancelled)
            #expect(token.isCancelled)
        }
    }

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

/// Holds the error a callback delivered.
final class ErrorBox: Sendable {
    private let storage = LockedValue<RequestKitError?>(nil)
    var error: RequestKitError? { storage.value }
    func set(_ error: RequestKitError) { storage.value = error }
}
