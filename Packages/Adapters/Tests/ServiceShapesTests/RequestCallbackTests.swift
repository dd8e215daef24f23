import Dispatch
import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitTesting
import ServiceShapes
import Testing

struct RequestCallbackTests {
    struct Vehicle: Decodable, Sendable, Equatable {
        let plate: String
    }

    @Test func theCompletionRunsOnTheCompletionQueue() async throws {
        let queue = LabelledQueue("request callbacks")
        try await withClient(handler: { _ in .json(#"{"ok": true}"#) }) { (client, _) async throws in
            let (result, label) = await outcome { done in
                client.get("x", completionQueue: queue.queue, completion: done)
            }
            #expect(try result.get().value.json == ["ok": true])
            #expect(label == queue.label)
        }
    }

    @Test func aFailureIsTheTypedError() async throws {
        try await withClient(handler: { _ in .status(500) }) { (client, _) async throws in
            let (result, _) = await outcome { done in client.request(.get, "x", as: Vehicle.self, completion: done) }
            #expect(throws: RequestKitError.self) { try result.get() }
            guard case .failure(let error) = result else { return }
            #expect(error.code == .unacceptableStatus)
            #expect(error.status == 500)
        }
    }

    @Test func cancellingTheTokenStopsTheTransferAndCompletesOnceWithCancelled() async throws {
        let arrived = Signal()
        let handler: TestServer.Handler = { _ in
            arrived.fire()
            return TestResponse(status: 200, body: .stall(prefix: Data("partial".utf8), declaredLength: 1_000))
        }
        try await withClient(handler: handler) { (client, _) async throws in
            let queue = LabelledQueue("cancelled request")
            let calls = LockedValue<[Result<DecodedResponse<ResponseContent>, RequestKitError>]>([])
            let completed = Signal()
            let token = client.get("slow", completionQueue: queue.queue) { result in
                calls.update { $0.append(result) }
                completed.fire()
            }
            await arrived.wait()
            #expect(!token.isFinished)
            token.cancel()
            await completed.wait()
            // A second cancel after the outcome changes nothing.
            token.cancel()
            try await Task.sleep(for: .milliseconds(200))
            #expect(calls.value.count == 1)
            guard case .failure(let error) = calls.value.first else {
                Issue.record("a cancelled request completed with \(String(describing: calls.value.first))")
                return
            }
            #expect(error.code == .cancelled)
            #expect(token.isCancelled)
            #expect(token.isFinished)
        }
    }

    @Test func cancellingAfterTheOutcomeDoesNothing() async throws {
        try await withClient(handler: { _ in .text("done") }) { (client, _) async throws in
            let calls = LockedValue(0)
            let completed = Signal()
            let token = client.get("x") { result in
                #expect((try? result.get().value.text) == "done")
                calls.update { $0 += 1 }
                completed.fire()
            }
            await completed.wait()
            token.cancel()
            try await Task.sleep(for: .milliseconds(100))
            #expect(calls.value == 1)
            #expect(!token.isCancelled)
            #expect(token.isFinished)
        }
    }

    @Test func everyOneCallFormHasACallbackForm() async throws {
        try await withClient(handler: TestServer.echo) { (client, server) async throws in
            let put = await outcome { done in
                client.put("v/1", parameters: ["a": 1], as: EchoedRequest.self, completion: done)
            }
            #expect(try put.result.get().method == "PUT")
            let patch = await outcome { done in
                client.patch("v/1", parameters: ["a": 1], encoding: .form, completion: done)
            }
            #expect(try patch.result.get().value.json?["body"] == "a=1")
            let post = await outcome { done in
                client.post("v", parameters: ["a": 1], as: EchoedRequest.self, completion: done)
            }
            #expect(try post.result.get().body == #"{"a":1}"#)
            let plainPost = await outcome { done in client.post("v", parameters: ["b": 2], completion: done) }
            #expect(try plainPost.result.get().value.json?["method"] == "POST")
            let plainPut = await outcome { done in client.put("v/2", completion: done) }
            #expect(try plainPut.result.get().value.json?["method"] == "PUT")
            let typedPatch = await outcome { done in client.patch("v/3", as: EchoedRequest.self, completion: done) }
            #expect(try typedPatch.result.get().method == "PATCH")
            let get = await outcome { done in
                client.get("v", parameters: ["a": 1], as: EchoedRequest.self, completion: done)
            }
            #expect(try get.result.get().query == ["a=1"])
            let delete = await outcome { done in client.delete("v/1", completion: done) }
            #expect(try delete.result.get().value.json?["method"] == "DELETE")
            let head = await outcome { done in client.head("v/1", completion: done) }
            #expect(try head.result.get().status == .ok)
            let plain = await outcome { done in client.request(.options, "v", completion: done) }
            #expect(try plain.result.get().value.json?["method"] == "OPTIONS")
            let withHeaders = await outcome { done in
                client.request(
                    .get,
                    "v",
                    headerFields: [.authorization: "Bearer t"],
                    as: EchoedRequest.self,
                    completion: done
                )
            }
            #expect(try withHeaders.result.get().value.authorization == "Bearer t")
            let endpoint = Endpoint(.get, "e", as: EchoedRequest.self)
            let response = await outcome { done in client.response(for: endpoint, completion: done) }
            #expect(try response.result.get().value.path == "/e")
            let sent = await outcome { done in client.send(endpoint, completion: done) }
            #expect(try sent.result.get().path == "/e")
            #expect(server.receivedRequests.count == 13)
        }
    }

    @Test func theBuilderSubmitsWithACompletion() async throws {
        try await withClient(handler: TestServer.echo) { (client, _) async throws in
            let queue = LabelledQueue("builder")
            let (text, label) = await outcome { done in
                client.makeRequest(.post, "jobs").parameters(["a": 1]).submit(
                    completionQueue: queue.queue,
                    completion: done
                )
            }
            #expect(try text.get().value.json?["body"] == #"{"a":1}"#)
            #expect(label == queue.label)
            let typed = await outcome { done in
                client.makeRequest(.get, "jobs/1").submit(as: EchoedRequest.self, completion: done)
            }
            #expect(try typed.result.get().value.path == "/jobs/1")
            let refused = await outcome { done in
                client.makeRequest(.get, "jobs").submitAsUpload(true, completion: done)
            }
            guard case .failure(let error) = refused.result else {
                Issue.record("an upload without a body was sent")
                return
            }
            #expect(error.code == .invalidRequest)
        }
    }

    @Test func aDownloadCompletesWithTheFileAndReportsProgress() async throws {
        let content = Data((0..<200_000).map { UInt8($0 % 251) })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("report.bin")
        let seen = LockedValue<Int64>(0)
        try await withClient(handler: { _ in TestResponse(status: 200, body: .data(content)) }) {
            (client, _) async throws in
            let queue = LabelledQueue("download")
            let (result, label) = await outcome { done in
                client.download(
                    "report",
                    saveAs: destination,
                    completionQueue: queue.queue,
                    progress: { progress in seen.value = progress.totalBytesTransferred },
                    completion: done
                )
            }
            #expect(try result.get().totalBytes == Int64(content.count))
            #expect(label == queue.label)
        }
        #expect(try Data(contentsOf: destination) == content)
        #expect(seen.value == Int64(content.count))
    }
}
