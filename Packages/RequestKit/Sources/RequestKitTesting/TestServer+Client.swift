public import RequestKit
public import RequestKitAsyncHTTPClient

/// Runs `body` with a loopback ``TestServer`` answering through `handler`, an `AsyncHTTPClientTransport`, and a
/// `RequestClient` pointed at the server; shuts all of them down when `body` returns or throws.
///
/// - Parameters:
///   - configuration: the client's configuration.
///   - transportConfiguration: the transport's configuration; with an `authority`, its TLS settings trust it.
///   - authority: serves over TLS with a certificate of this authority, when given.
///   - handler: answers each request.
@discardableResult
public func withClient<Result>(
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
