import Foundation
import HTTPTypes

/// The decisions of the HTTP cache as pure functions of requests, responses and times (RFC 9111 and RFC 5861):
/// what may be stored, how old and how fresh a stored answer is, which validators to send and how a `304` updates
/// what is stored. Nothing here suspends or touches a store.
enum CacheRules {
    /// Statuses a cache may store without explicit freshness and give heuristic freshness (RFC 9110 section 15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The most heuristic freshness given (a day).
    static let heuristicCap: TimeInterval = 86_400

    /// Statuses after which a stale answer may stand in for the server's (RFC 5861 section 4).
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Header fields never stored: hop-by-hop ones and the cache's own report.
    static let unstoredFields: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .proxyAuthenticate, .proxyAuthenticationInfo, .upgrade, .te,
        HTTPField.Name("Keep-Alive")!, cacheStatus,
    ]

    /// Header fields a `304` does not update (RFC 9111 section 3.2): the stored body's length and coding stay.
    static let unmergedFields: Set<HTTPField.Name> = unstoredFields.union([.contentLength, .contentEncoding])

    static let cacheStatus = HTTPField.Name("Cache-Status")!

    // MARK: - Age and freshness

    static func date(_ fields: HTTPFields, _ name: HTTPField.Name) -> Date? {
        fields[name].flatMap { CookieDate.parse($0) }
    }

    /// The corrected initial age (RFC 9111 section 4.2.3) of an answer with `fields` whose `Date` (or arrival, if
    /// it has none) is `date`.
    static func initialAge(fields: HTTPFields, date: Date, requestTime: Date, responseTime: Date) -> TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let ageValue = fields[.age].flatMap { TimeInterval($0.trimmingOptionalWhitespace()) } ?? 0
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, max(0, ageValue) + responseDelay)
    }

    /// The current age (RFC 9111 section 4.2.3).
    static func age(of entry: CachedResponse, at now: Date) -> TimeInterval {
        entry.age(at: now)
    }

    /// The freshness lifetime (RFC 9111 section 4.2.1 and the heuristic of 4.2.2) of an answer with `status` and
    /// `fields` whose `Date` (or arrival, if it has none) is `date`; a private cache ignores `s-maxage`.
    static func lifetime(status: Int, fields: HTTPFields, date: Date, control: CacheControl) -> TimeInterval {
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        if fields[.expires] != nil {
            // An invalid Expires (such as "0") means already expired.
            guard let expires = Self.date(fields, .expires) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(status) || control.isPublic,
            let lastModified = Self.date(fields, .lastModified)
        else { return 0 }
        let sinceModified = date.timeIntervalSince(lastModified)
        return min(max(0, sinceModified / 10), heuristicCap)
    }

    // MARK: - Storing

    /// Whether `response` to `request` may be stored by a private cache (RFC 9111 section 3 and 3.5).
    static func isStorable(request: ClientRequest, requestControl: CacheControl, response: ClientResponse) -> Bool {
        guard request.method == .get else { return false }
        let status = response.status.code
        guard status >= 200, status != 206, status != 304 else { return false }
        // An answer that says nothing about caching (no `Cache-Control`, no `Expires`) and has nothing to
        // revalidate it with is used again only by a request that forces reuse (`reuse(maxAge:)`); for the others,
        // storing it would only cost a copy of its body. (Heuristic freshness needs `Last-Modified`, a validator.)
        // Most answers to an API are such answers, so this is decided first, in one pass over the fields.
        guard request.cachePolicy.maxAge != nil || mentionsCaching(response.headerFields) else { return false }
        let control = CacheControl(response.headerFields)
        guard !control.noStore, !requestControl.noStore else { return false }
        if let vary = response.headerFields[.vary], varyNames(vary).contains("*") { return false }
        if request.headerFields[.authorization] != nil,
            !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil)
        {
            return false
        }
        let fields = response.headerFields
        return control.maxAge != nil || fields[.expires] != nil || control.isPublic || control.isPrivate
            || heuristicallyCacheable.contains(status)
    }

    /// Whether `fields` has `Cache-Control`, `Expires`, `ETag` or `Last-Modified`: one pass, comparing names only
    /// when the first letter could match.
    static func mentionsCaching(_ fields: HTTPFields) -> Bool {
        for field in fields {
            let name = field.name
            switch name.canonicalName.utf8.first {
            case UInt8(ascii: "c"): if name == .cacheControl { return true }
            case UInt8(ascii: "e"): if name == .expires || name == .eTag { return true }
            case UInt8(ascii: "l"): if name == .lastModified { return true }
            default: break
            }
        }
        return false
    }

    /// The field names of a `Vary` value, lowercased.
    static func varyNames(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingOptionalWhitespace().lowercased() }.filter {
            !$0.isEmpty
        }
    }

    /// The values of the request fields a response varies by (`nil` for `Vary: *`, which never matches).
    static func varyingValues(of request: ClientRequest, vary: String?) -> [String: String]? {
        guard let vary else { return [:] }
        var values: [String: String] = [:]
        for name in varyNames(vary) {
            guard name != "*" else { return nil }
            guard let fieldName = HTTPField.Name(name) else { continue }
            if let value = request.headerFields[fieldName] { values[name] = normalised(value) }
        }
        return values
    }

    /// Whether a stored answer was selected by the same values of its varying fields as `request` has
    /// (RFC 9111 section 4.1).
    static func varyMatches(_ entry: CachedResponse, _ request: ClientRequest) -> Bool {
        guard let vary = entry.head.vary else { return entry.varyingHeaderValues.isEmpty }
        guard let values = varyingValues(of: request, vary: vary) else { return false }
        return values == entry.varyingHeaderValues
    }

    private static func normalised(_ value: String) -> String {
        value.split(separator: ",").map { $0.trimmingOptionalWhitespace() }.joined(separator: ", ")
    }

    /// The response's header fields as stored.
    static func storedFields(_ fields: HTTPFields) -> HTTPFields {
        var stored = HTTPFields()
        stored.reserveCapacity(fields.count)
        for field in fields where !unstoredFields.contains(field.name) { stored.append(field) }
        return stored
    }

    // MARK: - Validation

    /// `request` with the validators of `entry` (RFC 9111 section 4.3.1): `If-None-Match` for its `ETag`,
    /// `If-Modified-Since` for its `Last-Modified`. `nil` when it has neither.
    static func conditional(_ request: ClientRequest, for entry: CachedResponse) -> ClientRequest? {
        let etag = entry.headerFields[.eTag]
        let lastModified = entry.headerFields[.lastModified]
        guard etag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let etag { conditional.headerFields[.ifNoneMatch] = etag }
        if let lastModified { conditional.headerFields[.ifModifiedSince] = lastModified }
        return conditional
    }

    /// Whether a `304` is about `entry` (RFC 9111 section 4.3.4): an `ETag` in the `304` must be the stored one.
    static func notModified(_ fields: HTTPFields, selects entry: CachedResponse) -> Bool {
        guard let etag = fields[.eTag] else { return true }
        guard let stored = entry.headerFields[.eTag] else { return false }
        return weakComparable(etag) == weakComparable(stored)
    }

    private static func weakComparable(_ tag: String) -> String {
        let trimmed = tag.trimmingOptionalWhitespace()
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : String(trimmed)
    }

    /// `entry` freshened by a `304` (RFC 9111 sections 3.2 and 4.3.4): the `304`'s header fields replace the
    /// stored ones of the same name, except the body's length and coding; the times are the revalidation's.
    static func freshen(
        _ entry: CachedResponse,
        with fields: HTTPFields,
        requestTime: Date,
        responseTime: Date
    ) -> CachedResponse {
        var updated = entry
        var merged = entry.headerFields
        for name in Set(fields.map(\.name)) where !unmergedFields.contains(name) {
            merged[fields: name] = fields[fields: name]
        }
        updated.headerFields = merged
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    // MARK: - Invalidation

    /// Whether a method is safe (RFC 9110 section 9.2.1); a successful unsafe request invalidates what is stored.
    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }

    /// The keys a successful unsafe request invalidates (RFC 9111 section 4.4): its URL and the `Location` and
    /// `Content-Location` of the response when they are on the same origin.
    static func invalidatedKeys(request: ClientRequest, response: ClientResponse) -> [CacheKey] {
        var keys = [CacheKey(method: .get, url: request.url)]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name],
                let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                sameOrigin(target, request.url)
            else { continue }
            keys.append(CacheKey(method: .get, url: target))
        }
        return keys
    }

    private static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func port(_ url: URL) -> Int? {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
        }
        return first.scheme?.lowercased() == second.scheme?.lowercased()
            && first.host?.lowercased() == second.host?.lowercased() && port(first) == port(second)
    }
}
