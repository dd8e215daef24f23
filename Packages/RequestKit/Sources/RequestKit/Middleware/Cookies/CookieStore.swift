public import Foundation
public import HTTPTypes
import Synchronization

/// Cookies kept in memory by the rules of RFC 6265: stored from `Set-Cookie` response fields, sent back in
/// `Cookie` on the requests they match.
///
/// A client uses no cookies unless you give it a store; set ``RequestClient/Configuration/cookieStore``. One store may
/// be shared by several clients.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// configuration.cookieStore = CookieStore()
/// let client = RequestClient(environment: environment, transport: transport, configuration: configuration)
/// ```
///
/// The rules applied:
/// - **Domain.** Without a `Domain` attribute a cookie is *host-only*: it goes back to exactly the host that set
///   it. With one (a leading dot is ignored), it also goes to that domain's subdomains, and it is ignored unless
///   the host that set it is inside the domain. There is no public suffix list: a `Domain` without a dot (`com`)
///   is refused, but a registry suffix with a dot (`co.uk`) is not recognised.
/// - **Path.** A cookie goes to its path and the paths below it. Without a `Path` attribute the path is the
///   request path up to its last `/` (`/v2/vehicles/7` sets `/v2/vehicles`).
/// - **Expiry.** `Max-Age` wins over `Expires`; a time in the past, or `Max-Age` of zero or less, deletes the
///   stored cookie. Cookies without either last as long as the store.
/// - **Secure.** A `Secure` cookie is sent only over `https`, and only an `https` response can set one.
/// - **HttpOnly** is kept (``Cookie/isHTTPOnly``) and the cookie is sent: it only hides cookies from scripts.
/// - **Replacement.** A cookie with the same name, domain and path as a stored one replaces it.
/// - **Limits.** Cookies whose name and value exceed 4096 bytes are ignored; past ``maximumCount`` cookies, the
///   oldest are dropped.
public final class CookieStore: Sendable {
    /// The most cookies kept.
    public let maximumCount: Int
    private let cookies = Mutex<[Cookie]>([])

    /// Creates an empty store.
    public init(maximumCount: Int = 3000) {
        self.maximumCount = maximumCount
    }

    /// Every cookie stored, expired ones included until the next change.
    public var allCookies: [Cookie] {
        cookies.withLock { $0 }
    }

    /// Stores the cookies of every `Set-Cookie` field of a response from `url`.
    public func store(from headerFields: HTTPFields, for url: URL, now: Date = Date()) {
        for field in headerFields where field.name == .setCookie {
            store(setCookie: field.value, for: url, now: now)
        }
    }

    /// Stores the cookie of one `Set-Cookie` value received from `url`.
    ///
    /// - Returns: the cookie stored, or `nil` when it was ignored or was a deletion.
    @discardableResult
    public func store(setCookie value: String, for url: URL, now: Date = Date()) -> Cookie? {
        guard let cookie = Self.parse(value, from: url, now: now) else { return nil }
        let maximumCount = self.maximumCount
        return cookies.withLock { cookies -> Cookie? in
            var created = now
            if let index = cookies.firstIndex(where: { $0.hasSameKey(as: cookie) }) {
                created = cookies[index].created
                cookies.remove(at: index)
            }
            cookies.removeAll { $0.isExpired(at: now) }
            guard !cookie.isExpired(at: now) else { return nil }
            let stored = cookie.replacing(created: created)
            cookies.append(stored)
            if cookies.count > maximumCount {
                cookies.sort { $0.created < $1.created }
                cookies.removeFirst(cookies.count - maximumCount)
            }
            return stored
        }
    }

    /// The cookies to send with a request to `url`: longer paths first, then older ones first.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let path = Self.requestPath(of: url)
        let secure = Self.isSecure(url)
        let matching = cookies.withLock { cookies in
            cookies.filter { cookie in
                !cookie.isExpired(at: now) && (!cookie.isSecure || secure)
                    && (cookie.isHostOnly ? host == cookie.domain : Self.domainMatches(host, cookie.domain))
                    && Self.pathMatches(path, cookie.path)
            }
        }
        return matching.sorted { first, second in
            first.path.utf8.count != second.path.utf8.count
                ? first.path.utf8.count > second.path.utf8.count : first.created < second.created
        }
    }

    /// The value of the `Cookie` field for a request to `url` (`a=1; b=2`), or `nil` when no cookie matches.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        let matching = cookies(for: url, now: now)
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Removes every cookie.
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    /// Removes the cookies that have expired at `now`.
    public func removeExpired(now: Date = Date()) {
        cookies.withLock { cookies in cookies.removeAll { $0.isExpired(at: now) } }
    }

    // MARK: - RFC 6265 section 5.2 and 5.3

    static func parse(_ line: String, from url: URL, now: Date) -> Cookie? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        var parts = line.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trim(pair[..<equals])
        let value = trim(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= 4096 else { return nil }
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var secure = false
        var httpOnly = false
        for part in parts {
            let attribute: Substring
            let argument: Substring
            if let equals = part.firstIndex(of: "=") {
                attribute = trim(part[..<equals])
                argument = trim(part[part.index(after: equals)...])
            } else {
                attribute = trim(part)
                argument = ""
            }
            switch attribute.lowercased() {
            case "expires":
                if let date = CookieDate.parse(String(argument)) { expires = date }
            case "max-age":
                if let seconds = maxAgeSeconds(argument) {
                    maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(Double(min(seconds, 1 << 40)))
                }
            case "domain":
                if !argument.isEmpty {
                    domain = String(argument.hasPrefix(".") ? argument.dropFirst() : argument).lowercased()
                }
            case "path":
                path = argument.hasPrefix("/") ? String(argument) : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                break
            }
        }
        if secure, !isSecure(url) { return nil }
        var isHostOnly = true
        var cookieDomain = host
        if let domain, !domain.isEmpty, domain != host {
            guard domain.contains("."), domainMatches(host, domain) else { return nil }
            isHostOnly = false
            cookieDomain = domain
        } else if domain != nil {
            isHostOnly = false
        }
        return Cookie(
            name: String(name),
            value: String(value),
            domain: cookieDomain,
            isHostOnly: isHostOnly,
            path: path ?? defaultPath(of: url),
            expires: maxAge ?? expires,
            isSecure: secure,
            isHTTPOnly: httpOnly,
            created: now
        )
    }

    /// `Max-Age`: an optional `-` and digits, else the attribute is ignored.
    private static func maxAgeSeconds(_ text: Substring) -> Int64? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // Overflowing values are far in the future or the past.
        return Int64(text) ?? (text.hasPrefix("-") ? -1 : Int64.max)
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    static func isSecure(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "https" || scheme == "wss"
    }

    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The directory of the request path: up to, not including, its last `/`; `/` when there is none past the
    /// first character.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// Whether `host` is `domain` or a subdomain of it; an IP address matches only itself.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        let isIPv4 = host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        return !isIPv4 && !host.contains(":")
    }

    /// Whether a request path is the cookie path or below it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
            || requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)]
                == UInt8(ascii: "/")
    }
}

extension CookieStore.Cookie {
    /// Whether a new cookie replaces this one: the same name, domain and path.
    func hasSameKey(as other: CookieStore.Cookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path
    }
}
