import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// The RFC 6265 rules, driven through the store's public API without I/O.
struct CookieStoreTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func url(_ text: String) -> URL { URL(string: text)! }

    @Test func aCookieWithoutDomainIsHostOnly() {
        let store = CookieStore()
        let cookie = store.store(setCookie: "sid=abc", for: url("https://api.example.com/v2/login"), now: now)
        #expect(cookie?.isHostOnly == true)
        #expect(cookie?.domain == "api.example.com")
        #expect(store.cookieHeader(for: url("https://api.example.com/v2/x"), now: now) == "sid=abc")
        #expect(store.cookieHeader(for: url("https://sub.api.example.com/v2/x"), now: now) == nil)
        #expect(store.cookieHeader(for: url("https://example.com/v2/x"), now: now) == nil)
    }

    @Test func aDomainCookieGoesToTheDomainAndItsSubdomains() {
        let store = CookieStore()
        let cookie = store.store(setCookie: "a=1; Domain=.Example.COM", for: url("https://api.example.com/"), now: now)
        #expect(cookie?.isHostOnly == false)
        #expect(cookie?.domain == "example.com")
        #expect(store.cookieHeader(for: url("https://example.com/"), now: now) == "a=1")
        #expect(store.cookieHeader(for: url("https://deep.api.example.com/"), now: now) == "a=1")
        #expect(store.cookieHeader(for: url("https://notexample.com/"), now: now) == nil)
    }

    @Test(arguments: [
        "a=1; Domain=other.com",  // not the host's domain
        "a=1; Domain=sub.api.example.com",  // below the host
        "a=1; Domain=com",  // a top-level domain
        "=1",  // no name
        "novalue",  // no `=`
    ])
    func cookiesForOtherDomainsOrMalformedOnesAreIgnored(line: String) {
        let store = CookieStore()
        #expect(store.store(setCookie: line, for: url("https://api.example.com/"), now: now) == nil)
        #expect(store.allCookies.isEmpty)
    }

    @Test(arguments: [
        ("/v2/vehicles/7", "/v2/vehicles"),
        ("/v2/", "/v2"),
        ("/login", "/"),
        ("", "/"),
    ])
    func theDefaultPathIsTheRequestPathsDirectory(requestPath: String, expected: String) {
        let store = CookieStore()
        let cookie = store.store(setCookie: "a=1", for: url("https://h.example\(requestPath)"), now: now)
        #expect(cookie?.path == expected)
    }

    @Test func aCookieGoesToItsPathAndBelowOnly() {
        let store = CookieStore()
        store.store(setCookie: "a=1; Path=/v2", for: url("https://h.example/"), now: now)
        #expect(store.cookieHeader(for: url("https://h.example/v2"), now: now) == "a=1")
        #expect(store.cookieHeader(for: url("https://h.example/v2/vehicles"), now: now) == "a=1")
        #expect(store.cookieHeader(for: url("https://h.example/v20"), now: now) == nil)
        #expect(store.cookieHeader(for: url("https://h.example/"), now: now) == nil)
    }

    @Test func longerPathsAreSentFirst() {
        let store = CookieStore()
        store.store(setCookie: "short=1; Path=/", for: url("https://h.example/"), now: now)
        store.store(setCookie: "long=2; Path=/v2/vehicles", for: url("https://h.example/"), now: now)
        #expect(store.cookieHeader(for: url("https://h.example/v2/vehicles/7"), now: now) == "long=2; short=1")
    }

    @Test func maxAgeWinsOverExpiresInEitherOrder() {
        let store = CookieStore()
        let a = store.store(
            setCookie: "a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
            for: url("https://h.example/"),
            now: now
        )
        let b = store.store(
            setCookie: "b=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=60",
            for: url("https://h.example/"),
            now: now
        )
        #expect(a?.expires == now.addingTimeInterval(60))
        #expect(b?.expires == now.addingTimeInterval(60))
        #expect(store.cookieHeader(for: url("https://h.example/"), now: now.addingTimeInterval(59)) == "a=1; b=1")
        #expect(store.cookieHeader(for: url("https://h.example/"), now: now.addingTimeInterval(60)) == nil)
    }

    @Test(arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "Wednesday, 21-Oct-15 07:28:00 GMT",
        "Wed Oct 21 07:28:00 2015",
        "21 oct 2015 7:28:0",
    ])
    func expiresUnderstandsTheDateFormatsServersUse(date: String) {
        let store = CookieStore()
        let old = Date(timeIntervalSince1970: 1_400_000_000)
        let cookie = store.store(setCookie: "a=1; Expires=\(date)", for: url("https://h.example/"), now: old)
        #expect(cookie?.expires == Date(timeIntervalSince1970: 1_445_412_480))
    }

    @Test func aSecureCookieIsSentOnlyOverHTTPSAndSetOnlyByHTTPS() {
        let store = CookieStore()
        store.store(setCookie: "s=1; Secure", for: url("https://h.example/"), now: now)
        #expect(store.store(setCookie: "t=1; Secure", for: url("http://h.example/"), now: now) == nil)
        #expect(store.cookieHeader(for: url("https://h.example/"), now: now) == "s=1")
        #expect(store.cookieHeader(for: url("http://h.example/"), now: now) == nil)
    }

    @Test func httpOnlyIsKeptAndTheCookieSent() {
        let store = CookieStore()
        let cookie = store.store(setCookie: "h=1; HttpOnly", for: url("https://h.example/"), now: now)
        #expect(cookie?.isHTTPOnly == true)
        #expect(store.cookieHeader(for: url("https://h.example/"), now: now) == "h=1")
    }

    @Test func aCookieWithTheSameNameDomainAndPathReplacesTheOldOneKeepingItsCreationTime() {
        let store = CookieStore()
        store.store(setCookie: "a=1; Path=/", for: url("https://h.example/"), now: now)
        store.store(setCookie: "a=other-path; Path=/v2", for: url("https://h.example/"), now: now)
        let later = now.addingTimeInterval(10)
        let replaced = store.store(setCookie: "a=2; Path=/", for: url("https://h.example/"), now: later)
        #expect(replaced?.created == now)
        #expect(store.allCookies.count == 2)
        #expect(store.cookieHeader(for: url("https://h.example/"), now: later) == "a=2")
    }

    @Test(arguments: ["a=; Max-Age=0", "a=; Max-Age=-1", "a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
    func anExpiryInThePastDeletesTheCookie(deletion: String) {
        let store = CookieStore()
        store.store(setCookie: "a=1", for: url("https://h.example/"), now: now)
        #expect(store.store(setCookie: deletion, for: url("https://h.example/"), now: now) == nil)
        #expect(store.allCookies.isEmpty)
    }

    @Test func theStoreKeepsAtMostItsMaximumDroppingTheOldest() {
        let store = CookieStore(maximumCount: 2)
        for index in 0..<3 {
            store.store(
                setCookie: "c\(index)=1",
                for: url("https://h.example/"),
                now: now.addingTimeInterval(Double(index))
            )
        }
        #expect(store.allCookies.map(\.name).sorted() == ["c1", "c2"])
    }
}

/// Cookies over loopback through a client's configuration.
struct CookieClientTests {
    static let cookieHandler: TestServer.Handler = { request in
        switch request.path {
        case "/login":
            return TestResponse(
                status: 200,
                headers: [("Set-Cookie", "sid=s3cret; Path=/; HttpOnly"), ("Set-Cookie", "theme=dark; Max-Age=3600")],
                body: .data(Data())
            )
        case "/logout":
            return TestResponse(status: 200, headers: [("Set-Cookie", "sid=; Max-Age=0; Path=/")])
        case "/redirect":
            return TestResponse(status: 302, headers: [("Location", "/landing")])
        case "/landing":
            return TestResponse(status: 200, headers: [("Set-Cookie", "landed=yes; Path=/")])
        default:
            return .text("cookie: " + (request.header("cookie") ?? ""))
        }
    }

    @Test func aClientWithAStoreSendsBackTheCookiesItReceived() async throws {
        var configuration = RequestClient.Configuration()
        let store = CookieStore()
        configuration.cookieStore = store
        #expect(configuration.cookieStore === store)
        try await withClient(configuration: configuration, handler: Self.cookieHandler) { client, server in
            _ = try await client.post("login")
            let afterLogin = try await client.get("vehicles").value.text
            #expect(afterLogin == "cookie: sid=s3cret; theme=dark")
            #expect(store.allCookies.first { $0.name == "sid" }?.isHTTPOnly == true)
            _ = try await client.post("logout")
            let afterLogout = try await client.get("vehicles").value.text
            #expect(afterLogout == "cookie: theme=dark")
            _ = try await client.get("redirect")
            let afterRedirect = try await client.get("vehicles").value.text
            #expect(afterRedirect == "cookie: theme=dark; landed=yes")
            #expect(server.receivedRequests[0].header("cookie") == nil)
        }
    }

    /// A server whose `/sign-in` redirects to `/home` setting a session, whose `/first/go` redirects to `/second`, and
    /// whose `/elsewhere` redirects to `target`; every other path answers with the `Cookie` field it received.
    private static func redirecting(to target: String = "/") -> TestServer.Handler {
        { request in
            switch request.path {
            case "/sign-in":
                TestResponse(status: 302, headers: [("Location", "/home"), ("Set-Cookie", "session=abc; Path=/")])
            case "/first/go":
                TestResponse(status: 307, headers: [("Location", "/second")])
            case "/elsewhere":
                TestResponse(status: 302, headers: [("Location", target), ("Set-Cookie", "left=1; Path=/")])
            default:
                .text("cookie: " + (request.header("cookie") ?? ""))
            }
        }
    }

    @Test func aCookieSetByARedirectIsStoredAndSentToTheNewLocation() async throws {
        var configuration = RequestClient.Configuration()
        let store = CookieStore()
        configuration.cookieStore = store
        try await withClient(configuration: configuration, handler: Self.redirecting()) { client, server in
            let home = try await client.get("sign-in").value.text
            #expect(home == "cookie: session=abc")
            #expect(store.allCookies.map(\.name) == ["session"])
            #expect(server.receivedRequests.map(\.path) == ["/sign-in", "/home"])
            #expect(server.receivedRequests[0].header("cookie") == nil)
        }
    }

    @Test func eachLocationGetsTheCookiesChosenForIt() async throws {
        var configuration = RequestClient.Configuration()
        let store = CookieStore()
        configuration.cookieStore = store
        try await withClient(configuration: configuration, handler: Self.redirecting()) { client, server in
            store.store(setCookie: "scoped=1; Path=/first", for: server.baseURL.appending(path: "first/"))
            store.store(setCookie: "everywhere=1; Path=/", for: server.baseURL)
            let second = try await client.request(.get, "first/go", headerFields: [.cookie: "own=1"]).value.text
            #expect(server.receivedRequests[0].header("cookie") == "own=1; scoped=1; everywhere=1")
            // The path-scoped cookie stays behind; the request's own value stays on the same origin.
            #expect(second == "cookie: own=1; everywhere=1")
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func leavingTheOriginDropsTheRequestsOwnCookieButSendsTheStoredOnes() async throws {
        // Cookies are kept per host, not per port (RFC 6265 section 8.5): the other server, on another port of the
        // same host, is another origin yet gets the host's cookies, as browsers send them.
        try await TestServer.withTestServer(handler: Self.redirecting()) { other in
            var configuration = RequestClient.Configuration()
            let store = CookieStore()
            configuration.cookieStore = store
            let target = other.baseURL.appending(path: "landed").absoluteString
            try await withClient(configuration: configuration, handler: Self.redirecting(to: target)) { client, home in
                let landed = try await client.request(.get, "elsewhere", headerFields: [.cookie: "own=1"]).value.text
                #expect(home.receivedRequests[0].header("cookie") == "own=1")
                #expect(landed == "cookie: left=1")
                #expect(other.receivedRequests.count == 1)
            }
        }
    }

    @Test func withoutAStoreARedirectSendsNoCookies() async throws {
        try await withClient(handler: Self.redirecting()) { client, server in
            let home = try await client.get("sign-in").value.text
            #expect(home == "cookie: ")
            #expect(server.receivedRequests.count == 2)
        }
    }

    @Test func aClientWithoutAStoreKeepsNoCookies() async throws {
        try await withClient(handler: Self.cookieHandler) { client, _ in
            _ = try await client.post("login")
            let text = try await client.get("vehicles").value.text
            #expect(text == "cookie: ")
        }
    }

    @Test func settingTheStoreToNilRemovesTheMiddleware() {
        var configuration = RequestClient.Configuration()
        configuration.cookieStore = CookieStore()
        configuration.cookieStore = CookieStore()
        #expect(configuration.middleware.count == 1)
        configuration.cookieStore = nil
        #expect(configuration.middleware.isEmpty)
        #expect(configuration.cookieStore == nil)
    }

    @Test func thePublicClientNeverSendsCookies() async throws {
        var configuration = RequestClient.Configuration()
        let store = CookieStore()
        configuration.cookieStore = store
        try await TestServer.withTestServer(handler: Self.cookieHandler) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let url = server.baseURL
                store.store(setCookie: "sid=s3cret; Path=/", for: url)
                let client = PublicResourceClient(transport: transport, configuration: configuration)
                let response = try await client.request(
                    .get,
                    url.appending(path: "vehicles"),
                    headerFields: [.cookie: "manual=1"]
                )
                #expect(response.value.text == "cookie: ")
                #expect(server.receivedRequests[0].header("cookie") == nil)
            }
        }
    }
}
