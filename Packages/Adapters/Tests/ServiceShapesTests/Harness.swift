import Dispatch
import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Synchronization

/// Runs `body` with a loopback test server answering through `handler`, a transport, and a client pointed at it.
@discardableResult
func withClient<Result>(
    handler: @escaping TestServer.Handler,
    _ body: (RequestClient, TestServer) async throws -> Result
) async throws -> Result {
    try await TestServer.withTestServer(handler: handler) { server in
        try await AsyncHTTPClientTransport.withTransport { transport in
            let environment = try ServiceEnvironment(name: "test", baseURL: server.baseURL)
            return try await body(RequestClient(environment: environment, transport: transport), server)
        }
    }
}

/// A one-shot event a test can wait for without sleeping.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func fire() {
        continuation.yield()
    }

    func wait() async {
        for await _ in stream { return }
    }
}

/// A value behind a lock, for collecting what completions saw.
final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }

    func update(_ change: (inout Value) -> Void) {
        mutex.withLock { change(&$0) }
    }
}

/// A serial queue that tests recognise with `DispatchQueue.getSpecific`.
struct LabelledQueue: Sendable {
    static let key = DispatchSpecificKey<String>()
    let queue: DispatchQueue
    let label: String

    init(_ label: String) {
        self.label = label
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: label)
    }

    /// The label of the queue the caller runs on, when it is one of these.
    static var current: String? { DispatchQueue.getSpecific(key: key) }
}

/// Runs a callback call from synchronous code and returns what its completion got, and on which queue.
func outcome<Value: Sendable, Failure: Error>(
    _ call: @escaping (@escaping @Sendable (Result<Value, Failure>) -> Void) -> Void
) async -> (result: Result<Value, Failure>, queue: String?) {
    await withCheckedContinuation { continuation in
        call { result in continuation.resume(returning: (result, LabelledQueue.current)) }
    }
}

/// Echoes the request back as JSON: method, path, query, body text and selected headers.
let echoHandler: TestServer.Handler = { request in
    let object: [String: Any] = [
        "method": request.method,
        "path": request.path,
        "query": request.query.map { "\($0.name)=\($0.value ?? "")" },
        "body": request.text,
        "contentType": request.header("content-type") ?? "",
        "authorization": request.header("authorization") ?? "",
    ]
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return TestResponse(status: 200, headers: [("Content-Type", "application/json")], body: .data(data))
}

struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: [String]
    let body: String
    let contentType: String
    let authorization: String
}
