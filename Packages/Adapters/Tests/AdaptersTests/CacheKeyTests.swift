import Foundation
import RequestStoreCache
import Testing

struct CacheKeyTests {
    @Test(arguments: [
        ("https://API.example.com:443/v2/vehicles?b=2&a=1#frag", "https://api.example.com/v2/vehicles?a=1&b=2"),
        ("http://127.0.0.1:80", "http://127.0.0.1/"),
        ("http://127.0.0.1:8080/x?tag=z&tag=a&id=1", "http://127.0.0.1:8080/x?id=1&tag=z&tag=a"),
    ])
    func equivalentURLsNormaliseToOneKey(url: String, normalized: String) throws {
        let parsed = try #require(URL(string: url))
        let key = try #require(CacheKey(method: "get", url: parsed))
        #expect(key.method == "GET")
        #expect(key.normalizedURL == normalized)
    }

    @Test func varyingHeadersSeparateKeysAndIgnoreNameCase() throws {
        let url = try #require(URL(string: "https://example.com/a"))
        let english = CacheKey(method: "GET", url: url, varyingHeaders: ["Accept-Language": "en"])
        let englishLower = CacheKey(method: "GET", url: url, varyingHeaders: ["accept-language": "en"])
        let german = CacheKey(method: "GET", url: url, varyingHeaders: ["Accept-Language": "de"])
        #expect(english == englishLower)
        #expect(english != german)
        #expect(english?.storageKey == "GET https://example.com/a\naccept-language: en")
    }

    @Test(arguments: ["file:///tmp/x", "mailto:someone@example.com", "relative/path"])
    func nonHTTPURLsAreNotCacheable(url: String) throws {
        let parsed = try #require(URL(string: url))
        #expect(CacheKey(method: "GET", url: parsed) == nil)
    }
}
