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

    // MARK: - The request's Cache-Control directives against httpbin's /cache/{n}

    /// A GET of `path` asking `directives`: its Cache-Status, and the `Cache-Control` httpbin saw (httpbin echoes the
    /// request's fields, so an answer from the cache shows the fields of the request that stored it).
    static func get(
        _ client: RequestClient,
        _ path: String,
        asking directives: String? = nil
    ) async throws -> (status: String?, echoed: String?) {
        var request = client.makeRequest(.get, path)
        if let directives { request = request.header(.cacheControl, directives) }
        let response = try await request.submit()
        let echoed: String?
        if case .string(let value)? = response.value.json?["headers"]?["Cache-Control"] {
            echoed = value
        } else {
            echoed = nil
        }
        return (response.headerFields[cacheStatusName], echoed)
    }

    @Test func aRequestsMaxAgeAndMinFreshSendAFreshAnswerBackToTheServer() async throws {
        let clock = CacheTestClock()
        var configuration = RequestClient.Configuration()
        configuration.cache = HTTPCache(store: MemoryCacheStore(), now: clock.read)
        try await withHTTPBin(configuration: configuration) { client in
            // httpbin answers /cache/60 with `Cache-Control: public, max-age=60`.
            #expect(try await Self.get(client, "cache/60").status == "RequestKit; fwd=miss; stored")
            clock.advance(10)
            #expect(try await Self.get(client, "cache/60").status == "RequestKit; hit; ttl=50")
            let zero = try await Self.get(client, "cache/60", asking: "max-age=0")
            #expect(zero.status?.hasPrefix("RequestKit; fwd=request") == true, "\(zero)")
            #expect(zero.echoed == "max-age=0", "httpbin saw the request")
            clock.advance(45)
            let minFresh = try await Self.get(client, "cache/60", asking: "min-fresh=30")
            #expect(minFresh.echoed == "min-fresh=30", "\(minFresh)")
            #expect(try await Self.get(client, "cache/60", asking: "min-fresh=30").status == "RequestKit; hit; ttl=60")
        }
    }

    @Test func aRequestsMaxStaleAndOnlyIfCachedDecideAboutAStaleAnswerWithoutAskingTheServer() async throws {
        let clock = CacheTestClock()
        var configuration = RequestClient.Configuration()
        configuration.cache = HTTPCache(store: MemoryCacheStore(), now: clock.read)
        try await withHTTPBin(configuration: configuration) { client in
            _ = try await Self.get(client, "cache/10")
            clock.advance(30)
            let accepted = try await Self.get(client, "cache/10", asking: "max-stale=60")
            #expect(accepted.status == "RequestKit; hit; ttl=-20")
            #expect(accepted.echoed == nil, "answered from the cache")
            let cached = await #expect(throws: RequestKitError.self) {
                _ = try await Self.get(client, "cache/10", asking: "only-if-cached")
            }
            #expect(cached?.code == .notCached)
            let refused = try await Self.get(client, "cache/10", asking: "max-stale=5")
            #expect(refused.echoed == "max-stale=5", "sent to httpbin: \(refused)")
        }
    }
}
