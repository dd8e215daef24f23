import Dispatch
import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

struct CallbackParityTests {
    /// Runs a callback call and returns its result.
    func outcome<Value: Sendable>(
        _ call: (
            @escaping @Sendable (Value) -> Void, @escaping @Sendable (RequestKitError) -> Void
        ) -> CancellableToken
    ) async -> Value? {
        let result = await withCheckedContinuation { continuation in
            _ = call(
                { continuation.resume(returning: Result<Value, RequestKitError>.success($0)) },
                { continuation.resume(returning: .failure($0)) }
            )
        }
        switch result {
        case .success(let value): return value
        case .failure(let error):
            Issue.record(error)
            return nil
        }
    }

    @Test func everyOneCallFormHasACallbackForm() async throws {
        try await withClient(handler: echoHandler) { client, server in
            let put = await outcome { client.put("v/1", parameters: ["a": 1], as: Echo.self, success: $0, failure: $1) }
            #expect(put?.method == "PUT")
            let patch = await outcome {
                client.patch("v/1", parameters: ["a": 1], encoding: .form, success: $0, failure: $1)
            }
            #expect(patch?.value.json?["body"] == "a=1")
            let post = await outcome { client.post("v", parameters: ["a": 1], as: Echo.self, success: $0, failure: $1) }
            #expect(post?.body == #"{"a":1}"#)
            let get = await outcome { client.get("v", parameters: ["a": 1], as: Echo.self, success: $0, failure: $1) }
            #expect(get?.query == ["a=1"])
            let delete = await outcome { client.delete("v/1", success: $0, failure: $1) }
            #expect(delete?.value.json?["method"] == "DELETE")
            let head = await outcome { client.head("v/1", success: $0, failure: $1) }
            #expect(head?.status == .ok)
            let withHeaders = await outcome {
                client.request(
                    .get,
                    "v",
                    headerFields: [.authorization: "Bearer t"],
                    as: Echo.self,
                    success: $0,
                    failure: $1
                )
            }
            #expect(withHeaders?.value.authorization == "Bearer t")
            let endpoint = await outcome {
                client.response(for: Endpoint(.get, "e", as: Echo.self), success: $0, failure: $1)
            }
            #expect(endpoint?.value.path == "/e")
            #expect(server.receivedRequests.count == 8)
        }
    }
}
