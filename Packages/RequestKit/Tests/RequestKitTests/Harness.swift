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
