import Foundation
import HTTPTypes
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

/// A clock the tests move by hand, for an ``HTTPCache``.
final class CacheTestClock: Sendable {
    private let current = LockedValue(Date(timeIntervalSince1970: 1_700_000_000))

    var now: Date { current.value }

    func advance(_ seconds: TimeInterval) {
        current.update { $0 = $0.addingTimeInterval(seconds) }
    }

    var read: @Sendable () -> Date {
        let current = self.current
        return { current.value }
    }
}

let cacheStatusName = HTTPField.Name("Cache-Status")!

/// The HTTP cache driven through a client on a mock transport and a test clock: no sockets, no sleeping.
struct HTTPCacheTests {
    let clock = CacheTestClock()
    let mock = MockTransport()
    let environment: ServiceEnvironment

    init() throws {
        environment = try ServiceEnvironment(name: "mock", baseURL: "https://api.example.com/")
    }

    func client(store: any CacheStore = MemoryCacheStore()) -> RequestClient {
        var configuration = RequestClient.Configuration()
        configuration.cache = HTTPCache(store: store, now: clock.read)
        return RequestClient(environment: environment, transport: mock, configuration: configuration)
    }

    /// Answers `path` with `text` and `headers`, counting the answers in the text.
    func serve(_ path: String, status: Int = 200, headers: [(String, String)]) {
        let count = LockedValue(0)
        mock.on(nil, path) { _ in
            count.update { $0 += 1 }
            return TestResponse(
                status: status,
                headers: [("Content-Type", "text/plain")] + headers.map { (name: $0.0, value: $0.1) },
                body: .data(Data("answer \(count.value)".utf8))
            )
        }
    }

    func get(
        _ client: RequestClient,
        _ path: String,
        policy: CachePolicy = .useProtocol
    ) async throws
        -> (text: String?, status: String?, headers: HTTPFields)
    {
        let response = try await client.makeRequest(.get, path).cachePolicy(policy)
            .validation(ResponseValidation(acceptableStatusCodes: [200...599])).submit()
        return (response.value.text, response.headerFields[cacheStatusName], response.headerFields)
    }

    // MARK: - Freshness

    @Test func aFreshAnswerIsReusedWithoutARequestAndReportsAHit() async throws {
        serve("vehicles", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        let first = try await get(client, "vehicles")
        #expect(first.text == "answer 1")
        #expect(first.status == "RequestKit; fwd=miss; stored")
        clock.advance(10)
        let second = try await get(client, "vehicles")
        #expect(second.text == "answer 1")
        #expect(second.status == "RequestKit; hit; ttl=50")
        #expect(second.headers[.age] == "10")
        #expect(mock.requests.count == 1)
    }

    @Test func anAnswerPastMaxAgeIsFetchedAgain() async throws {
        serve("vehicles", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "vehicles")
        clock.advance(60)
        let second = try await get(client, "vehicles")
        #expect(second.text == "answer 2")
        #expect(second.status == "RequestKit; fwd=stale; fwd-status=200; stored")
        #expect(mock.requests.count == 2)
        #expect(mock.requests[1].headerFields[.ifNoneMatch] == nil)
    }

    @Test func expiresCountsFromTheServersDate() async throws {
        serve(
            "vehicles",
            headers: [("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Expires", "Tue, 14 Nov 2023 22:14:20 GMT")]
        )
        let client = client()
        _ = try await get(client, "vehicles")
        clock.advance(59)
        #expect(try await get(client, "vehicles").text == "answer 1")
        clock.advance(1)
        #expect(try await get(client, "vehicles").text == "answer 2")
    }

    @Test func anInvalidExpiresMeansAlreadyStale() async throws {
        serve("vehicles", headers: [("Expires", "0")])
        let client = client()
        _ = try await get(client, "vehicles")
        #expect(try await get(client, "vehicles").text == "answer 2")
    }

    @Test func maxAgeWinsOverExpiresAndSharedMaxAgeIsIgnored() async throws {
        serve("vehicles", headers: [("Cache-Control", "max-age=10, s-maxage=600"), ("Expires", "0")])
        let client = client()
        _ = try await get(client, "vehicles")
        clock.advance(9)
        #expect(try await get(client, "vehicles").text == "answer 1")
        clock.advance(1)
        #expect(try await get(client, "vehicles").text == "answer 2")
    }

    @Test func theAgeTheServerReportsCountsAgainstFreshness() async throws {
        serve("vehicles", headers: [("Cache-Control", "max-age=60"), ("Age", "50")])
        let client = client()
        _ = try await get(client, "vehicles")
        clock.advance(9)
        let hit = try await get(client, "vehicles")
        #expect(hit.status == "RequestKit; hit; ttl=1")
        #expect(hit.headers[.age] == "59")
        clock.advance(1)
        #expect(try await get(client, "vehicles").text == "answer 2")
    }

    @Test func withoutExplicitFreshnessATenthOfTheTimeSinceLastModifiedIsUsed() async throws {
        // Modified 1,000 seconds before the answer's date: fresh for 100 seconds.
        serve(
            "vehicles",
            headers: [("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Last-Modified", "Tue, 14 Nov 2023 21:56:40 GMT")]
        )
        let client = client()
        _ = try await get(client, "vehicles")
        clock.advance(99)
        #expect(try await get(client, "vehicles").text == "answer 1")
        clock.advance(1)
        _ = try await get(client, "vehicles")
        #expect(mock.requests.count == 2)
        #expect(mock.requests[1].headerFields[.ifModifiedSince] == "Tue, 14 Nov 2023 21:56:40 GMT")
    }

    @Test func heuristicFreshnessIsOnlyForStatusesCacheableByDefault() async throws {
        serve(
            "created",
            status: 201,
            headers: [("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Last-Modified", "Tue, 14 Nov 2023 21:56:40 GMT")]
        )
        let client = client()
        #expect(try await get(client, "created").status == "RequestKit; fwd=miss")
        #expect(try await get(client, "created").text == "answer 2")
    }

    @Test(arguments: [404, 410, 501])
    func statusesCacheableByDefaultAreStored(status: Int) async throws {
        serve("gone", status: status, headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "gone")
        #expect(try await get(client, "gone").status == "RequestKit; hit; ttl=60")
    }

    @Test func otherStatusesAreStoredOnlyWithExplicitFreshness() async throws {
        serve("error", status: 500, headers: [])
        serve("accepted", status: 202, headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "error")
        #expect(try await get(client, "error").text == "answer 2")
        _ = try await get(client, "accepted")
        #expect(try await get(client, "accepted").text == "answer 1")
    }

    // MARK: - Directives

    @Test func noStoreIsNeverStored() async throws {
        serve("secret", headers: [("Cache-Control", "no-store, max-age=60")])
        let client = client()
        #expect(try await get(client, "secret").status == "RequestKit; fwd=miss")
        #expect(try await get(client, "secret").text == "answer 2")
    }

    @Test func noCacheIsStoredButAlwaysRevalidated() async throws {
        serve("fleet", headers: [("Cache-Control", "no-cache, max-age=60"), ("ETag", "\"v1\"")])
        let client = client()
        _ = try await get(client, "fleet")
        _ = try await get(client, "fleet")
        #expect(mock.requests.count == 2)
        #expect(mock.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
    }

    @Test func aRequestAskingForNoCacheRevalidatesAFreshAnswer() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        let client = client()
        _ = try await get(client, "fleet")
        let response = try await client.makeRequest(.get, "fleet").header(.cacheControl, "no-cache").submit()
        #expect(response.headerFields[cacheStatusName] == "RequestKit; fwd=request; fwd-status=200; stored")
        #expect(mock.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
    }

    // MARK: - The request's own directives (RFC 9111 section 5.2.1)

    /// A GET of `path` with `Cache-Control: directives`, its text and Cache-Status.
    func get(_ client: RequestClient, _ path: String, asking directives: String) async throws -> (String?, String?) {
        let response = try await client.makeRequest(.get, path).header(.cacheControl, directives).submit()
        return (response.value.text, response.headerFields[cacheStatusName])
    }

    @Test func aRequestsMaxAgeZeroRevalidatesAFreshAnswer() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(1)
        let (text, status) = try await get(client, "fleet", asking: "max-age=0")
        #expect(text == "answer 2")
        #expect(status == "RequestKit; fwd=request; fwd-status=200; stored")
        #expect(mock.requests.count == 2)
        #expect(mock.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
    }

    @Test func aRequestsMaxAgeCapsTheAgeOfAnAnswerUsedWithoutValidation() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(10)
        #expect(try await get(client, "fleet", asking: "max-age=30").1 == "RequestKit; hit; ttl=50")
        clock.advance(30)
        #expect(
            try await get(client, "fleet", asking: "max-age=30").1 == "RequestKit; fwd=request; fwd-status=200; stored"
        )
    }

    @Test func aRequestsMinFreshAsksForFreshnessLeft() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(10)
        #expect(try await get(client, "fleet", asking: "min-fresh=20").1 == "RequestKit; hit; ttl=50")
        clock.advance(40)
        #expect(try await get(client, "fleet", asking: "min-fresh=20").0 == "answer 2")
    }

    @Test func aRequestsMaxStaleAcceptsThatMuchStalenessButNeverPastMustRevalidate() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10")])
        serve("strict", headers: [("Cache-Control", "max-age=10, must-revalidate")])
        let client = client()
        _ = try await get(client, "fleet")
        _ = try await get(client, "strict")
        clock.advance(30)
        #expect(try await get(client, "fleet", asking: "max-stale=30").1 == "RequestKit; hit; ttl=-20")
        #expect(try await get(client, "fleet", asking: "max-stale").1 == "RequestKit; hit; ttl=-20")
        #expect(try await get(client, "fleet", asking: "max-stale=10").0 == "answer 2")
        #expect(try await get(client, "strict", asking: "max-stale").0 == "answer 2")
    }

    @Test func aRequestsOnlyIfCachedTakesAStoredAnswerThatMeetsItsOtherDirectivesOrNone() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10")])
        let client = client()
        let miss = await #expect(throws: RequestKitError.self) {
            try await get(client, "fleet", asking: "only-if-cached")
        }
        #expect(miss?.code == .notCached)
        #expect(mock.requests.isEmpty)
        _ = try await get(client, "fleet")
        #expect(try await get(client, "fleet", asking: "only-if-cached").1 == "RequestKit; hit; ttl=10")
        clock.advance(30)
        let stale = await #expect(throws: RequestKitError.self) {
            try await get(client, "fleet", asking: "only-if-cached")
        }
        #expect(stale?.code == .notCached)
        #expect(try await get(client, "fleet", asking: "only-if-cached, max-stale=60").1 == "RequestKit; hit; ttl=-20")
        #expect(mock.requests.count == 1)
    }

    @Test func privateAnswersAreStoredByThisPrivateCache() async throws {
        serve("me", headers: [("Cache-Control", "private, max-age=60")])
        let client = client()
        _ = try await get(client, "me")
        #expect(try await get(client, "me").status == "RequestKit; hit; ttl=60")
    }

    @Test func answersToRequestsWithAuthorizationAreStoredOnlyWhenTheServerAllowsIt() async throws {
        serve("mine", headers: [("Cache-Control", "max-age=60")])
        serve("shared", headers: [("Cache-Control", "public, max-age=60")])
        let client = client()
        for _ in 0..<2 {
            _ = try await client.makeRequest(.get, "mine").header(.authorization, "Bearer a").submit()
            _ = try await client.makeRequest(.get, "shared").header(.authorization, "Bearer a").submit()
        }
        #expect(mock.requests.map(\.url.path) == ["/mine", "/shared", "/mine"])
    }

    // MARK: - Validation

    @Test func aStaleAnswerIsRevalidatedAndA304RefreshesItsHeaderFields() async throws {
        let answers = LockedValue(0)
        mock.on(.get, "fleet") { request in
            answers.update { $0 += 1 }
            if request.header("if-none-match") == "\"v1\"" {
                return TestResponse(
                    status: 304,
                    headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=120"), ("X-Revision", "2")]
                )
            }
            return TestResponse(
                headers: [
                    ("Content-Type", "text/plain"), ("ETag", "\"v1\""), ("Cache-Control", "max-age=60"),
                    ("X-Revision", "1"),
                ],
                body: .data(Data("the fleet".utf8))
            )
        }
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(61)
        let revalidated = try await get(client, "fleet")
        #expect(revalidated.text == "the fleet")
        #expect(revalidated.status == "RequestKit; fwd=stale; fwd-status=304; stored")
        #expect(revalidated.headers[HTTPField.Name("X-Revision")!] == "2")
        #expect(revalidated.headers[.contentType] == "text/plain")
        // Fresh again for the 304's max-age, counted from the revalidation.
        clock.advance(119)
        let hit = try await get(client, "fleet")
        #expect(hit.status == "RequestKit; hit; ttl=1")
        #expect(hit.headers[HTTPField.Name("X-Revision")!] == "2")
        #expect(answers.value == 2)
    }

    @Test func a304ForAnotherETagFetchesTheWholeAnswer() async throws {
        mock.on(.get, "fleet") { request in
            if request.header("if-none-match") != nil {
                return TestResponse(status: 304, headers: [("ETag", "\"other\"")])
            }
            return TestResponse(
                headers: [("Content-Type", "text/plain"), ("ETag", "\"v1\""), ("Cache-Control", "max-age=1")],
                body: .data(Data("x".utf8))
            )
        }
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(5)
        let second = try await get(client, "fleet")
        #expect(second.text == "x")
        #expect(mock.requests.count == 3)
        #expect(mock.requests[2].headerFields[.ifNoneMatch] == nil)
    }

    @Test func requestsWithTheirOwnValidatorsOrARangePassThrough() async throws {
        serve("file", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "file")
        let ranged = try await client.makeRequest(.get, "file").header(.range, "bytes=0-1").submit()
        #expect(ranged.headerFields[cacheStatusName] == "RequestKit; fwd=bypass")
        #expect(mock.requests.count == 2)
    }

    @Test func withinStaleWhileRevalidateTheStaleAnswerComesAtOnceAndIsRefreshedOnceInTheBackground() async throws {
        let revalidations = LockedValue(0)
        let release = Signal()
        mock.on(.get, "fleet") { request in
            if request.header("if-none-match") == "\"v1\"" {
                revalidations.update { $0 += 1 }
                // Held until the stale answers below have been given: they never wait for the server.
                await release.wait()
                return TestResponse(
                    status: 304,
                    headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60, stale-while-revalidate=30")]
                )
            }
            return TestResponse(
                headers: [
                    ("Content-Type", "text/plain"), ("ETag", "\"v1\""),
                    ("Cache-Control", "max-age=60, stale-while-revalidate=30"),
                ],
                body: .data(Data("the fleet".utf8))
            )
        }
        let store = ReportingCacheStore()
        var stores = store.stores.makeAsyncIterator()
        let client = client(store: store)
        _ = try await get(client, "fleet")
        clock.advance(70)
        for _ in 0..<3 {
            let stale = try await get(client, "fleet")
            #expect(stale.text == "the fleet")
            #expect(stale.status == "RequestKit; hit; ttl=-10; detail=stale-while-revalidate")
        }
        release.fire()
        // One revalidation for the three stale answers, whose refreshed answer the background task stores just
        // after the server's answer arrives: the second store, after the first answer's.
        _ = await stores.next()
        _ = await stores.next()
        let fresh = try await get(client, "fleet")
        #expect(fresh.status == "RequestKit; hit; ttl=60")
        #expect(revalidations.value == 1)
        // Past the window, the stale answer is revalidated before it is used.
        clock.advance(100)
        release.fire()
        let late = try await get(client, "fleet")
        #expect(late.status == "RequestKit; fwd=stale; fwd-status=304; stored")
        #expect(revalidations.value == 2)
    }

    @Test func shuttingTheClientDownCancelsARevalidationRunningInTheBackground() async throws {
        let revalidating = Signal()
        let cancelled = LockedValue(false)
        let holds = LockedValue(true)
        let fields = [("ETag", "\"v1\""), ("Cache-Control", "max-age=60, stale-while-revalidate=30")]
        mock.on(.get, "fleet") { request in
            if request.header("if-none-match") == "\"v1\"" {
                if holds.value {
                    holds.value = false
                    revalidating.fire()
                    do {
                        try await Task.sleep(for: .seconds(3600))
                    } catch {
                        cancelled.value = true
                        throw error
                    }
                }
                return TestResponse(status: 304, headers: fields)
            }
            return TestResponse(
                headers: [("Content-Type", "text/plain")] + fields,
                body: .data(Data("the fleet".utf8))
            )
        }
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(70)
        let stale = try await get(client, "fleet")
        #expect(stale.status == "RequestKit; hit; ttl=-10; detail=stale-while-revalidate")
        await revalidating.wait()
        await client.shutdown()
        #expect(cancelled.value)
        // Once shut down, nothing starts in the background: a stale answer within the window is revalidated before
        // it is returned, as past the window.
        let after = try await get(client, "fleet")
        #expect(after.status == "RequestKit; fwd=stale; fwd-status=304; stored")
    }

    // MARK: - Vary

    @Test func varyingAnswersAreKeptPerRequestHeaderValue() async throws {
        mock.on(.get, "greeting") { request in
            TestResponse(
                headers: [
                    ("Content-Type", "text/plain"), ("Cache-Control", "max-age=60"), ("Vary", "Accept-Language"),
                ],
                body: .data(Data((request.header("accept-language") ?? "none").utf8))
            )
        }
        let client = client()
        func greet(_ language: String) async throws -> (String?, String?) {
            let response = try await client.makeRequest(.get, "greeting").header(.acceptLanguage, language).submit()
            return (response.value.text, response.headerFields[cacheStatusName])
        }
        #expect(try await greet("de") == ("de", "RequestKit; fwd=miss; stored"))
        #expect(try await greet("en") == ("en", "RequestKit; fwd=vary-miss; stored"))
        #expect(try await greet("de") == ("de", "RequestKit; hit; ttl=60"))
        #expect(try await greet("en") == ("en", "RequestKit; hit; ttl=60"))
        #expect(mock.requests.count == 2)
    }

    @Test func varyStarIsNeverReused() async throws {
        serve("any", headers: [("Cache-Control", "max-age=60"), ("Vary", "*")])
        let client = client()
        _ = try await get(client, "any")
        #expect(try await get(client, "any").text == "answer 2")
    }

    // MARK: - Invalidation

    @Test func aSuccessfulUnsafeRequestInvalidatesItsURLAndItsLocationOnTheSameOrigin() async throws {
        serve("vehicles/7", headers: [("Cache-Control", "max-age=600")])
        serve("vehicles/8", headers: [("Cache-Control", "max-age=600")])
        mock.on(.post, "vehicles/7") { _ in
            TestResponse(
                status: 201,
                headers: [("Location", "/vehicles/8"), ("Content-Location", "https://elsewhere.example.com/v")]
            )
        }
        let client = client()
        _ = try await get(client, "vehicles/7")
        _ = try await get(client, "vehicles/8")
        let posted = try await client.post("vehicles/7")
        #expect(posted.headerFields[cacheStatusName] == "RequestKit; fwd=method")
        #expect(try await get(client, "vehicles/7").text == "answer 2")
        #expect(try await get(client, "vehicles/8").text == "answer 2")
    }

    @Test func aFailedUnsafeRequestInvalidatesNothing() async throws {
        serve("vehicles/7", headers: [("Cache-Control", "max-age=600")])
        mock.on(.delete, "vehicles/7") { _ in .status(500) }
        let client = client()
        _ = try await get(client, "vehicles/7")
        _ = try? await client.delete("vehicles/7")
        #expect(try await get(client, "vehicles/7").status == "RequestKit; hit; ttl=600")
    }

    // MARK: - Errors

    @Test func staleIfErrorServesTheStoredAnswerWhenTheServerFails() async throws {
        let failing = LockedValue(false)
        mock.on(.get, "fleet") { _ in
            if failing.value { return .status(503) }
            return TestResponse(
                headers: [("Content-Type", "text/plain"), ("Cache-Control", "max-age=10, stale-if-error=60")],
                body: .data(Data("kept".utf8))
            )
        }
        let client = client()
        _ = try await get(client, "fleet")
        failing.value = true
        clock.advance(70)
        let stale = try await get(client, "fleet")
        #expect(stale.text == "kept")
        #expect(stale.status == "RequestKit; fwd=stale; fwd-status=503; detail=stale-if-error")
        clock.advance(1)
        // Past the window the server's error comes through.
        let error = try await get(client, "fleet")
        #expect(error.headers[cacheStatusName] == "RequestKit; fwd=stale; fwd-status=503")
    }

    @Test func staleIfErrorServesTheStoredAnswerWhenTheServerCannotBeReached() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10, stale-if-error=60")])
        let client = client()
        _ = try await get(client, "fleet")
        mock.fail(.get, "fleet", with: RequestKitError(.transportFailed, subject: "mock", reason: "down"))
        clock.advance(20)
        let stale = try await get(client, "fleet")
        #expect(stale.text == "answer 1")
        #expect(stale.status == "RequestKit; fwd=stale; detail=stale-if-error")
    }

    @Test func mustRevalidateForbidsStaleAnswersOnError() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10, stale-if-error=60, must-revalidate")])
        let client = client()
        _ = try await get(client, "fleet")
        mock.fail(.get, "fleet", with: RequestKitError(.transportFailed, subject: "mock", reason: "down"))
        clock.advance(20)
        let error = await #expect(throws: RequestKitError.self) { try await get(client, "fleet") }
        #expect(error?.code == .transportFailed)
    }

    // MARK: - Policies

    @Test func onlyIfCachedAnswersFromTheCacheOrFailsWithoutSending() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10")])
        let client = client()
        let miss = await #expect(throws: RequestKitError.self) { try await get(client, "fleet", policy: .onlyIfCached) }
        #expect(miss?.code == .notCached)
        #expect(mock.requests.isEmpty)
        _ = try await get(client, "fleet")
        clock.advance(100)
        let stale = try await get(client, "fleet", policy: .onlyIfCached)
        #expect(stale.text == "answer 1")
        #expect(stale.status == "RequestKit; hit; ttl=-90")
        #expect(mock.requests.count == 1)
    }

    @Test func onlyIfCachedDoesNotUseStaleAnswersThatMustBeRevalidated() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=10, must-revalidate")])
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(100)
        let error = await #expect(throws: RequestKitError.self) {
            try await get(client, "fleet", policy: .onlyIfCached)
        }
        #expect(error?.code == .notCached)
    }

    @Test func reuseForcesAStoredAnswerYoungerThanItsMaxAge() async throws {
        serve("fleet", headers: [("Cache-Control", "no-cache")])
        let client = client()
        _ = try await get(client, "fleet")
        clock.advance(30)
        #expect(try await get(client, "fleet", policy: .reuse(maxAge: .seconds(60))).text == "answer 1")
        clock.advance(31)
        #expect(try await get(client, "fleet", policy: .reuse(maxAge: .seconds(60))).text == "answer 2")
    }

    @Test func reuseNeverServesAnAnswerMarkedNoStore() async throws {
        serve("fleet", headers: [("Cache-Control", "no-store")])
        let client = client()
        _ = try await get(client, "fleet", policy: .reuse(maxAge: .seconds(60)))
        #expect(try await get(client, "fleet", policy: .reuse(maxAge: .seconds(60))).text == "answer 2")
    }

    @Test func reloadIgnoresTheStoredAnswerAndStoresTheNewOne() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        let client = client()
        _ = try await get(client, "fleet")
        let reloaded = try await get(client, "fleet", policy: .reload)
        #expect(reloaded.text == "answer 2")
        #expect(reloaded.status == "RequestKit; fwd=bypass; stored")
        #expect(mock.requests[1].headerFields[.ifNoneMatch] == nil)
        #expect(try await get(client, "fleet").text == "answer 2")
    }

    @Test func noneBypassesTheCacheEntirely() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        #expect(try await get(client, "fleet", policy: .none).status == "RequestKit; fwd=bypass")
        #expect(try await get(client, "fleet").status == "RequestKit; fwd=miss; stored")
        #expect(try await get(client, "fleet", policy: .none).text == "answer 3")
    }

    @Test func endpointsAndBuilderCarryTheirPolicyToTheRequest() async throws {
        let seen = LockedValue<[CachePolicy]>([])
        var configuration = RequestClient.Configuration()
        configuration.middleware = [CachePolicyRecorder(seen: seen)]
        mock.on(.get, "x") { _ in .text("x") }
        let client = RequestClient(environment: environment, transport: mock, configuration: configuration)
        _ = try await client.get("x")
        _ = try await client.makeRequest(.get, "x").cachePolicy(.onlyIfCached).submit()
        _ = try await client.send(Endpoint<ResponseContent>(.get, "x").cachePolicy(.reload))
        #expect(seen.value == [.useProtocol, .onlyIfCached, .reload])
    }

    // MARK: - Bodies and HEAD

    @Test func aBodyIsStoredWhenTheCallerHasReadItChunkByChunk() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        let url = try #require(URL(string: "https://api.example.com/fleet"))
        let response = try await client.send(ClientRequest(method: .get, url: url))
        var read = Data()
        for try await chunk in response.body { read.append(chunk) }
        #expect(String(decoding: read, as: UTF8.self) == "answer 1")
        #expect(try await get(client, "fleet").status == "RequestKit; hit; ttl=60")
    }

    @Test func aBodyOverTheStoresLimitIsPassedOnUncached() async throws {
        mock.on(.get, "big") { _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data(count: 2_000)))
        }
        let client = client(store: MemoryCacheStore(maximumBytes: 100_000, maximumBodySize: 1_000))
        let first = try await client.get("big")
        guard case .data(let body) = first.value else {
            Issue.record("expected bytes, got \(first.value)")
            return
        }
        #expect(body.count == 2_000)
        #expect(first.headerFields[cacheStatusName] == "RequestKit; fwd=miss")
        _ = try await client.get("big")
        #expect(mock.requests.count == 2)
    }

    @Test func headIsAnsweredFromAStoredGet() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "fleet")
        let head = try await client.head("fleet")
        #expect(head.headerFields[cacheStatusName] == "RequestKit; hit; ttl=60")
        #expect(mock.requests.count == 1)
    }

    @Test func aHeadHitLeavesTheBodyOfTheNextGetHitAlone() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "fleet")
        let head = try await client.head("fleet")
        guard case .empty = head.value else {
            Issue.record("expected no body, got \(head.value)")
            return
        }
        let hit = try await get(client, "fleet")
        #expect(hit.text == "answer 1")
        #expect(hit.status == "RequestKit; hit; ttl=60")
        #expect(mock.requests.count == 1)
    }

    @Test func repeatedHitsReportTheAgeOfTheirOwnSecond() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = client()
        _ = try await get(client, "fleet")
        for (advance, age, ttl) in [(0.0, "0", 60), (0.5, "0", 59), (0.5, "1", 59), (0.0, "1", 59), (20, "21", 39)] {
            clock.advance(advance)
            let hit = try await get(client, "fleet")
            #expect(hit.text == "answer 1")
            #expect(hit.headers[.age] == age)
            #expect(hit.status == "RequestKit; hit; ttl=\(ttl)")
            #expect(hit.headers[fields: cacheStatusName].count == 1)
        }
        #expect(mock.requests.count == 1)
    }

    @Test func withoutACacheNothingIsReported() async throws {
        serve("fleet", headers: [("Cache-Control", "max-age=60")])
        let client = RequestClient(environment: environment, transport: mock)
        #expect(try await client.get("fleet").headerFields[cacheStatusName] == nil)
        _ = try await client.get("fleet")
        #expect(mock.requests.count == 2)
    }
}

/// A ``MemoryCacheStore`` that reports every answer it has stored, so that a test awaits a store the cache makes in
/// the background.
final class ReportingCacheStore: CacheStore {
    private let base = MemoryCacheStore()
    /// One element per answer stored, after it is stored.
    let stores: AsyncStream<Void>
    private let stored: AsyncStream<Void>.Continuation

    init() {
        (stores, stored) = AsyncStream.makeStream(of: Void.self)
    }

    var maximumBodySize: Int { base.maximumBodySize }

    func entries(for key: CacheKey) async throws -> [CachedResponse] {
        try await base.entries(for: key)
    }

    func store(_ entry: CachedResponse) async throws {
        try await base.store(entry)
        stored.yield()
    }

    func remove(_ key: CacheKey) async throws {
        try await base.remove(key)
    }

    func removeExpired(now: Date) async throws {
        try await base.removeExpired(now: now)
    }

    func removeAll() async throws {
        try await base.removeAll()
    }
}
