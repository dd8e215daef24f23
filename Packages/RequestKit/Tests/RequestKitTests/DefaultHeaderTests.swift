import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct DefaultHeaderTests {
    struct Plate: Decodable, Sendable {
        let plate: String
    }

    /// Answers with the request's `User-Agent` and `Accept` as JSON.
    static let headerEcho: TestServer.Handler = { request in
        .json(
            #"{"plate": "\#(request.header("user-agent") ?? "")|\#(request.header("accept") ?? "")"}"#
        )
    }

    @Test func requestsNameRequestKitAndItsVersionAsTheUserAgent() async throws {
        #expect(RequestKitVersion.userAgent == "RequestKit/\(RequestKitVersion.current)")
        try await withClient(handler: Self.headerEcho) { client, server in
            _ = try await client.get("vehicles")
            #expect(server.receivedRequests[0].header("user-agent") == RequestKitVersion.userAgent)
        }
    }

    @Test func acceptFollowsWhatTheCallExpects() async throws {
        try await withClient(handler: Self.headerEcho) { client, server in
            _ = try await client.get("content")
            _ = try await client.get("model", as: Plate.self)
            _ = try await client.send(Endpoint(.get, "endpoint", as: Plate.self))
            _ = try await client.stream(.get, "stream")
            let accepts = server.receivedRequests.map { $0.header("accept") }
            #expect(accepts == ["*/*", "application/json", "application/json", "*/*"])
        }
    }

    @Test func theClientsHeaderFieldsWinOverTheDefaults() async throws {
        var configuration = RequestClient.Configuration()
        configuration.headerFields[.userAgent] = "fleet/2.0"
        configuration.headerFields[.accept] = "application/vnd.fleet+json"
        try await withClient(configuration: configuration, handler: Self.headerEcho) { client, server in
            _ = try await client.get("model", as: Plate.self)
            #expect(server.receivedRequests[0].header("user-agent") == "fleet/2.0")
            #expect(server.receivedRequests[0].header("accept") == "application/vnd.fleet+json")
        }
    }

    @Test func aRequestsOwnHeaderFieldsWinOverTheClientsAndTheDefaults() async throws {
        var configuration = RequestClient.Configuration()
        configuration.headerFields[.userAgent] = "fleet/2.0"
        try await withClient(configuration: configuration, handler: Self.headerEcho) { client, server in
            let headers: HTTPFields = [.userAgent: "probe/1", .accept: "text/plain"]
            _ = try await client.request(.get, "one-call", headerFields: headers)
            _ = try await client.send(Endpoint(.get, "endpoint", as: Plate.self).header(.accept, "application/xml"))
            _ = try await client.makeRequest(.get, "builder").header(.userAgent, "builder/1").submit()
            let sent = server.receivedRequests.map { [$0.header("user-agent"), $0.header("accept")] }
            #expect(sent[0] == ["probe/1", "text/plain"])
            #expect(sent[1] == ["fleet/2.0", "application/xml"])
            #expect(sent[2] == ["builder/1", "*/*"])
        }
    }

    @Test func eachHeaderIsSentOnce() async throws {
        var configuration = RequestClient.Configuration()
        configuration.headerFields[.accept] = "application/json"
        try await withClient(configuration: configuration, handler: Self.headerEcho) { client, server in
            _ = try await client.request(.get, "x", headerFields: [.accept: "text/plain"])
            let request = server.receivedRequests[0]
            #expect(request.headers.filter { $0.name.lowercased() == "accept" }.count == 1)
            #expect(request.headers.filter { $0.name.lowercased() == "user-agent" }.count == 1)
        }
    }
}
