public import Foundation
public import HTTPTypes

/// An answer kept by the HTTP cache: the status, header fields and decoded body of a response to a `GET`, when it
/// was requested and received, and the request header values it varies by.
///
/// A value type, so a ``CacheStore`` can keep it anywhere (it is `Codable` for stores that serialise).
public struct CachedResponse: Sendable, Hashable, Codable {
    /// The key it is stored under.
    public var key: CacheKey
    /// The values of the request header fields the response's `Vary` names, by lowercased field name; a field the
    /// request did not send is absent. A stored answer is used only for a request with the same values.
    public var varyingHeaderValues: [String: String]
    /// The status code.
    public var status: Int
    /// The response header fields (without hop-by-hop fields and the cache's own `Cache-Status`).
    public var headerFields: HTTPFields
    /// The body, with content codings removed.
    public var body: Data
    /// The URL the response came from (after redirects).
    public var url: URL
    /// When the request that brought this answer (or last revalidated it) was sent.
    public var requestTime: Date
    /// When that answer arrived.
    public var responseTime: Date

    /// Creates a stored answer.
    public init(
        key: CacheKey,
        varyingHeaderValues: [String: String] = [:],
        status: Int,
        headerFields: HTTPFields,
        body: Data,
        url: URL,
        requestTime: Date,
        responseTime: Date
    ) {
        self.key = key
        self.varyingHeaderValues = varyingHeaderValues
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// The bytes it takes in memory, roughly: the body and the header fields' names and values.
    public var byteCount: Int {
        var count = body.count + 256
        for field in headerFields { count += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        for (name, value) in varyingHeaderValues { count += name.utf8.count + value.utf8.count }
        return count
    }

    /// How long the answer is fresh after it was generated, in seconds (RFC 9111 section 4.2.1): `max-age`, else
    /// `Expires` minus `Date`, else for a status cacheable by default with a `Last-Modified` a tenth of the time
    /// since then, at most a day (the heuristic of section 4.2.2); otherwise 0. `s-maxage` is for shared caches and
    /// is ignored.
    public var freshnessLifetime: TimeInterval {
        CacheRules.lifetime(of: self, control: CacheControl(headerFields))
    }

    /// The answer's age at `now`, in seconds (RFC 9111 section 4.2.3): its `Age`, the time it spent in transit and
    /// the time since it arrived.
    public func age(at now: Date) -> TimeInterval {
        CacheRules.age(of: self, at: now)
    }

    /// Whether the answer is fresh at `now`: younger than its ``freshnessLifetime``.
    public func isFresh(at now: Date) -> Bool {
        age(at: now) < freshnessLifetime
    }

    /// When the answer stops being usable without asking the server: the end of its freshness plus the longer of
    /// its `stale-while-revalidate` and `stale-if-error` windows. ``CacheStore/removeExpired(now:)`` removes answers
    /// past it.
    public var expiry: Date {
        let control = CacheControl(headerFields)
        let lifetime = CacheRules.lifetime(of: self, control: control)
        let staleWindow = max(control.staleWhileRevalidate ?? 0, control.staleIfError ?? 0)
        return responseTime.addingTimeInterval(
            lifetime - CacheRules.initialAge(of: self) + TimeInterval(staleWindow)
        )
    }
}
