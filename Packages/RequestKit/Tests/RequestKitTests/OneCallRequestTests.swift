import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct OneCallRequestTests {
    @Test func getSendsParametersAsTheQueryAndDecodesJSONByMediaType() async throws {
        try await withClient(handler: TestServer.echo) { client, _ in
            let response = try await client.get("vehicles", parameters: ["make": "volvo", "year": 2020])
            #expect(response.status == .ok)
            let json = try #require(response.value.json)
            #expect(json["method"] == "GET")
            #expect(json["path"] == "/vehicles")
            #expect(json["query"] == ["make=volvo", "year=2020"])
        }
    }

    @Test func postSendsParametersAsAJSONBody() async throws {
        try await withClient(handler: TestServer.echo) { client, _ in
            let echo = try await client.post(
                "vehicles",
                parameters: ["plate": "AB 123", "year": 2020],
                as: EchoedRequest.self
            )
            #expect(echo.method == "POST")
            #expect(echo.contentType == "application/json")
            #expect(try JSONValue(parsing: echo.body) == ["plate": "AB 123", "year": 2020])
        }
    }

    @Test func formEncodingSendsAFormBody() async throws {
        try await withClient(handler: TestServer.echo) { client, _ in
            let echo = try await client.put(
                "vehicles/1",
                parameters: ["plate": "AB 123"],
                encoding: .form,
                as: EchoedRequest.self
            )
            #expect(echo.method == "PUT")
            #expect(echo.contentType == "application/x-www-form-urlencoded")
            #expect(echo.body == "plate=AB%20123")
        }
    }

    @Test(arguments: [HTTPRequest.Method.get, .post, .put, .patch, .delete])
    func everyMethodReachesTheServer(method: HTTPRequest.Method) async throws {
        try await withClient(handler: TestServer.echo) { client, server in
            let echo = try await client.request(method, "things", parameters: ["a": "1"], as: EchoedRequest.self).value
            #expect(echo.method == method.rawValue)
            #expect(server.receivedRequests.count == 1)
            if method == .get || method == .delete {
                #expect(echo.query == ["a=1"])
            } else {
                #expect(echo.body == #"{"a":"1"}"#)
            }
        }
    }

    @Test func headReturnsTheHeadWithAnEmptyValue() async throws {
        try await withClient(handler: { _ in .json(#"{"ignored": true}"#) }) { client, server in
            let response = try await client.head("vehicles")
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "application/json")
            guard case .empty = response.value else {
                Issue.record("expected an empty value, got \(response.value)")
                return
            }
            #expect(server.receivedRequests.first?.method == "HEAD")
        }
    }

    @Test func relativePathsResolveAgainstTheEnvironmentBasePath() async throws {
        try await TestServer.withTestServer(handler: TestServer.echo) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environment = try ServiceEnvironment(name: "api", baseURL: server.baseURL.appending(path: "api/v2"))
                let client = RequestClient(environment: environment, transport: transport)
                let echo = try await client.get("/vehicles/7", as: EchoedRequest.self)
                #expect(echo.path == "/api/v2/vehicles/7")
            }
        }
    }
}
