import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct PublicResourceClientTests {
    @Test func theSecureClientIsLockedToItsEnvironmentsHost() async throws {
        try await withClient(handler: TestServer.echo) { client, server in
            await #expect {
                _ = try await client.get("http://127.0.0.1:\(server.port)/elsewhere")
            } throws: { error in
                (error as? RequestKitError)?.code == .invalidPath
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func thePublicClientReachesAnyURLAndNeverSendsCredentials() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let client = PublicResourceClient(transport: transport)
                let url = server.baseURL.appending(path: "tiles/3/4").appending(queryItems: [
                    URLQueryItem(name: "z", value: "9")
                ])
                let echo = try await client.get(url, as: EchoedRequest.self)
                #expect(echo.path == "/tiles/3/4")
                #expect(echo.query == ["z=9"])
                let response = try await client.request(
                    .get,
                    url,
                    headerFields: [.authorization: "Bearer leaked", .cookie: "session=1"]
                )
                #expect(response.value.json?["authorization"] == "")
                let received = try #require(server.receivedRequests.last)
                #expect(received.header("cookie") == nil)
            }
        }
    }
}
