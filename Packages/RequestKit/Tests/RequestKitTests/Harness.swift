import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting

/// Runs `body` with a test server answering through `handler`, a transport, and a client pointed at the server.
@discardableResult
func withClient<Result>(
    configuration: RequestClient.Configuration = RequestClient.Configuration(),
    transportConfiguration: AsyncHTTPClientTransport.Configuration = AsyncHTTPClientTransport.Configuration(),
    authority: TestCertificateAuthority? = nil,
    handler: @escaping TestServer.Handler,
    _ body: (RequestClient, TestServer) async throws -> Result
) async throws -> Result {
    var transportConfiguration = transportConfiguration
    if let authority { transportConfiguration.tls = try authority.clientTLSConfiguration() }
    return try await TestServer.withTestServer(tls: try authority?.serverTLSConfiguration(), handler: handler) {
        server in
        try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) { transport in
            let environment = try ServiceEnvironment(name: "test", baseURL: server.baseURL)
            let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
            return try await body(client, server)
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
