public import Foundation

/// The identity of a cached HTTP response: the method, the normalised URL and the request header values the
/// response varies on.
///
/// Two requests that a server must answer identically map to the same key: the scheme and host are lowercased,
/// default ports (80 for `http`, 443 for `https`) and fragments are dropped, and query items are sorted by name
/// (keeping the order of repeated names). The key's ``storageKey`` is the string a cache store indexes by.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The request method, uppercased.
    public let method: String
    /// The normalised URL as a string.
    public let normalizedURL: String
    /// Lowercased header names with the request's values, sorted by name (the response's `Vary` set).
    public let varyingHeaders: [(name: String, value: String)]

    /// Creates the key for a request.
    ///
    /// - Parameters:
    ///   - method: The HTTP method; compared case-insensitively.
    ///   - url: An absolute `http` or `https` URL.
    ///   - varyingHeaders: Request header values named by the response's `Vary` header.
    /// - Returns: `nil` when the URL is not an absolute HTTP(S) URL with a host, so it cannot be cached.
    public init?(method: String, url: URL, varyingHeaders: [String: String] = [:]) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            return nil
        }
        components.scheme = scheme
        components.host = host.lowercased()
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) {
            components.port = nil
        }
        components.fragment = nil
        if components.path.isEmpty {
            components.path = "/"
        }
        if let items = components.queryItems, !items.isEmpty {
            // A stable sort keeps repeated names (`?tag=a&tag=b`) in their original, meaningful order.
            components.queryItems = items.enumerated()
                .sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
                .map(\.element)
        } else {
            components.query = nil
        }
        guard let normalized = components.string else {
            return nil
        }
        self.method = method.uppercased()
        self.normalizedURL = normalized
        self.varyingHeaders =
            varyingHeaders
            .map { (name: $0.key.lowercased(), value: $0.value) }
            .sorted { $0.name < $1.name }
    }

    /// The string a cache store indexes responses by: method, URL and varying headers, unambiguously joined.
    public var storageKey: String {
        var key = method + " " + normalizedURL
        for header in varyingHeaders {
            key += "\n" + header.name + ": " + header.value
        }
        return key
    }

    public var description: String { storageKey.replacingOccurrences(of: "\n", with: " | ") }

    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.storageKey == rhs.storageKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storageKey)
    }
}
