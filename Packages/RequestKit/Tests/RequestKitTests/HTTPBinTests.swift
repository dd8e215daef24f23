import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import Testing

/// The base URL of an httpbin server (`gunicorn -b 127.0.0.1:PORT httpbin:app`), a peer nobody on the team wrote.
let httpbinURL = ProcessInfo.processInfo.environment["REQUESTKIT_HTTPBIN_URL"]

/// Runs `body` with a client of the httpbin server at ``httpbinURL``.
func withHTTPBin<Result>(
    configuration: RequestClient.Configuration = RequestClient.Configuration(),
    transportConfiguration: AsyncHTTPClientTransport.Configuration = AsyncHTTPClientTransport.Configuration(),
    _ body: (RequestClient) async throws -> Result
) async throws -> Result {
    let environment = try ServiceEnvironment(name: "httpbin", baseURL: try #require(httpbinURL))
    return try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) { transport in
        try await body(RequestClient(environment: environment, transport: transport, configuration: configuration))
    }
}

// Skipped, with this reason printed, unless REQUESTKIT_HTTPBIN_URL names a running httpbin (Scripts/test-all starts
// one).
@Suite(.enabled(if: httpbinURL != nil, "REQUESTKIT_HTTPBIN_URL is not set: no httpbin server to test against"))
struct HTTPBinTests {
    struct StreamedRequest: Decodable, Sendable {
        let id: Int
        let headers: [String: String]
    }

    @Test func httpbinSeesTheDefaultUserAgentAndAccept() async throws {
        try await withHTTPBin { client in
            let headers = try await client.get("headers").value.json?["headers"]
            #expect(headers?["User-Agent"] == .string(RequestKitVersion.userAgent))
            #expect(headers?["Accept"] == "*/*")
        }
    }

    @Test func httpbinsNDJSONStreamDecodesLineByLine() async throws {
        try await withHTTPBin { client in
            var ids: [Int] = []
            for try await line in try await client.jsonLines("stream/5", as: StreamedRequest.self) {
                ids.append(line.id)
                #expect(line.headers["Accept"]?.hasPrefix("application/x-ndjson") == true)
            }
            #expect(ids == [0, 1, 2, 3, 4])
        }
    }

    @Test func cookiesSetByHttpbinAreSentBack() async throws {
        var configuration = RequestClient.Configuration()
        configuration.cookieStore = CookieStore()
        // httpbin sets the cookie on a redirect; with the transport following none, the redirect response itself
        // reaches the cookie middleware.
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.maximumRedirects = 0
        try await withHTTPBin(configuration: configuration, transportConfiguration: transportConfiguration) {
            client in
            let set = Endpoint(.get, "cookies/set").query("fleet", "volvo").acceptingStatus(200...399)
            _ = try await client.send(set)
            let cookies = try await client.get("cookies").value.json?["cookies"]
            #expect(cookies == ["fleet": "volvo"])
            _ = try await client.send(Endpoint(.get, "cookies/delete").query("fleet", "").acceptingStatus(200...399))
            let after = try await client.get("cookies").value.json?["cookies"]
            #expect(after == [:])
        }
    }

    @Test func cookiesSetByHttpbinsRedirectReachTheLocationItNames() async throws {
        var configuration = RequestClient.Configuration()
        configuration.cookieStore = CookieStore()
        // httpbin's `cookies/set` answers 302 with the cookie and sends the client on to `cookies`, which lists what
        // it received: the transport follows the redirect, and the cookie must be stored and sent on the way.
        try await withHTTPBin(configuration: configuration) { client in
            let listed = try await client.send(Endpoint(.get, "cookies/set").query("fleet", "saab")).json
            #expect(listed?["cookies"] == ["fleet": "saab"])
            let deleted = try await client.send(Endpoint(.get, "cookies/delete").query("fleet", "")).json
            #expect(deleted?["cookies"] == [:])
        }
    }

    @Test func basicAuthorizationPassesHttpbinsCheck() async throws {
        try await withHTTPBin { client in
            let good = Endpoint(.get, "basic-auth/fleet/s3cret").basicAuthorization(
                username: "fleet",
                password: "s3cret"
            )
            let authenticated = try await client.send(good).json?["authenticated"]
            #expect(authenticated == true)
            let bad = Endpoint(.get, "basic-auth/fleet/s3cret").basicAuthorization(username: "fleet", password: "wrong")
            let error = await #expect(throws: RequestKitError.self) { _ = try await client.send(bad) }
            #expect(error?.status == 401)
        }
    }

    @Test func bearerTokensPassHttpbinsCheck() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware.append(RequestDecorator.bearerToken("t0ken"))
        try await withHTTPBin(configuration: configuration) { client in
            let response = try await client.get("bearer").value.json
            #expect(response?["token"] == "t0ken")
        }
    }

    @Test func httpbinsXMLDecodesAsText() async throws {
        try await withHTTPBin { client in
            let text = try await client.get("xml").value.text
            #expect(text?.hasPrefix("<?xml") == true)
        }
    }
}
