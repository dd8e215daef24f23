public import Foundation
public import HTTPTypes

/// What the HTTP cache stores answers under: the request method and the normalised URL.
///
/// The URL's scheme and host are lowercased, the default port (80 for `http`, 443 for `https`) is dropped, an
/// empty path becomes `/`, the query is kept exactly as sent and the fragment is dropped. Answers that vary by
/// request header fields (`Vary`) are stored as variants under one key (``CachedResponse/varyingHeaderValues``).
public struct CacheKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The request method.
    public let method: HTTPRequest.Method
    /// The normalised URL, as text.
    public let url: String
    /// The hash of the method and URL, worked out once: a store's lookup then hashes one number instead of the
    /// URL's text.
    private let digest: Int

    /// The key of a request with `method` to `url`.
    public init(method: HTTPRequest.Method, url: URL) {
        self.init(method: method, normalisedURL: Self.normalise(url))
    }

    /// A key as a store kept it (``description`` splits into these two parts).
    public init(method: HTTPRequest.Method, normalisedURL: String) {
        self.method = method
        self.url = normalisedURL
        var hasher = Hasher()
        hasher.combine(method)
        hasher.combine(normalisedURL)
        self.digest = hasher.finalize()
    }

    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.digest == rhs.digest && lhs.url == rhs.url && lhs.method == rhs.method
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    /// `GET https://example.com/path?query`.
    public var description: String { method.rawValue + " " + url }

    private enum CodingKeys: String, CodingKey {
        case method
        case url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .method)
        guard let method = HTTPRequest.Method(name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .method,
                in: container,
                debugDescription: "not an HTTP method"
            )
        }
        self.init(method: method, normalisedURL: try container.decode(String.self, forKey: .url))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method.rawValue, forKey: .method)
        try container.encode(url, forKey: .url)
    }

    static func normalise(_ url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        var text = scheme + "://"
        if let host = url.host(percentEncoded: true) { text += host.lowercased() }
        if let port = url.port, !((scheme == "http" && port == 80) || (scheme == "https" && port == 443)) {
            text += ":" + String(port)
        }
        let path = url.path(percentEncoded: true)
        text += path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) { text += "?" + query }
        return text
    }
}
