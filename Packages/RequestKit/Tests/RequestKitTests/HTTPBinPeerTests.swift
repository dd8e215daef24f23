import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Compression, redirects and timeouts against httpbin, a server nobody on the team wrote.
@Suite(.enabled(if: httpbinURL != nil, "set REQUESTKIT_HTTPBIN_URL to an httpbin server (Scripts/test-all starts one)"))
struct HTTPBinPeerTests {
    @Test(arguments: [("gzip", "gzipped"), ("deflate", "deflated"), ("brotli", "brotli")])
    func compressedAnswersDecode(path: String, flag: String) async throws {
        try await withHTTPBin { client in
            let response = try await client.get(path)
            #expect(response.headerFields[.contentEncoding] == nil)
            let json = try #require(response.value.json)
            #expect(json[flag] == true)
            #expect(json["headers"]?["Accept-Encoding"] == "gzip, deflate, br")
        }
    }

    @Test func sensitiveHeadersDoNotFollowARedirectToAnotherOrigin() async throws {
        try await TestServer.withTestServer(handler: { _ in .status(200) }) { other in
            let target = other.baseURL.appending(path: "landed").absoluteString
            var configuration = RequestClient.Configuration()
            configuration.headerFields[.authorization] = "Bearer secret"
            configuration.sensitiveHeaderNames = [try #require(HTTPField.Name("X-Api-Key"))]
            configuration.headerFields[try #require(HTTPField.Name("X-Api-Key"))] = "key"
            try await withHTTPBin(configuration: configuration) { client in
                for status in [302, 307] {
                    _ = try await client.makeRequest(.get, "redirect-to")
                        .query("url", target).query("status_code", "\(status)")
                        .submit()
                }
            }
            #expect(other.receivedRequests.count == 2)
            for request in other.receivedRequests {
                #expect(request.path == "/landed")
                #expect(request.header("authorization") == nil)
                #expect(request.header("x-api-key") == nil)
            }
        }
    }

    @Test func sameOriginRedirectsKeepCredentialsAndLongChainsStopAtTheLimit() async throws {
        var configuration = RequestClient.Configuration()
        configuration.headerFields[.authorization] = "Bearer secret"
        try await withHTTPBin(configuration: configuration) { client in
            let response = try await client.get("redirect/3")
            #expect(response.url.path == "/get")
            #expect(response.value.json?["headers"]?["Authorization"] == "Bearer secret")
            await #expect {
                _ = try await client.get("redirect/8")
            } throws: { error in
                (error as? RequestKitError)?.code == .tooManyRedirects
            }
        }
    }

    @Test func aTricklingBodyRunsIntoThePerAttemptTimeout() async throws {
        // /drip sends one byte a second: never silent long enough for a read timeout.
        try await withHTTPBin { client in
            let start = ContinuousClock.now
            await #expect {
                _ = try await client.makeRequest(.get, "drip")
                    .query("duration", "20").query("numbytes", "20").query("delay", "0")
                    .timeouts(Timeouts(perAttempt: .milliseconds(1_500)))
                    .submit()
            } throws: { error in
                (error as? RequestKitError)?.code == .timedOut
            }
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }
}
