public import Foundation
public import HTTPTypes

/// An answer kept by the HTTP cache: the status, header fields and decoded body of a response to a `GET`, when it
/// was requested and received, and the request header values it varies by.
///
/// A value type, so a ``CacheStore`` can keep it anywhere (it is `Codable` for stores that serialise).
public struct CachedResponse: Sendable, Hashable, Codable {
    /// The key it is stored under.
    public var key: CacheKey {
        get { storage.parts.key }
        set { change { $0.key = newValue } }
    }
    /// The values of the request header fields the response's `Vary` names, by lowercased field name; a field the
    /// request did not send is absent. A stored answer is used only for a request with the same values.
    public var varyingHeaderValues: [String: String] {
        get { storage.parts.varyingHeaderValues }
        set { change { $0.varyingHeaderValues = newValue } }
    }
    /// The status code.
    public var status: Int {
        get { storage.parts.status }
        set { change(head: true) { $0.status = newValue } }
    }
    /// The response header fields (without hop-by-hop fields and the cache's own `Cache-Status`).
    public var headerFields: HTTPFields {
        get { storage.parts.headerFields }
        set { change(head: true) { $0.headerFields = newValue } }
    }
    /// The body, with content codings removed.
    public var body: Data {
        get { storage.parts.body }
        set { change { $0.body = newValue } }
    }
    /// The URL the response came from (after redirects).
    public var url: URL {
        get { storage.parts.url }
        set { change { $0.url = newValue } }
    }
    /// When the request that brought this answer (or last revalidated it) was sent.
    public var requestTime: Date {
        get { storage.parts.requestTime }
        set { change(head: true) { $0.requestTime = newValue } }
    }
    /// When that answer arrived.
    public var responseTime: Date {
        get { storage.parts.responseTime }
        set { change(head: true) { $0.responseTime = newValue } }
    }

    /// What a lookup needs from the header fields, worked out once when the answer is made or changed rather than
    /// at every hit.
    var head: Head { storage.head }
    /// The response last given for a hit on this answer (``Answers``); replaced whenever the answer changes.
    var answers: Answers { storage.answers }

    /// Every part, in one object that copies of the answer share: a store hands out copies on every lookup, and
    /// copying one reference costs a tenth of copying each part's. Never changed once made: a change makes a new
    /// one.
    private var storage: Storage

    private final class Storage: Sendable {
        let parts: Parts
        let head: Head
        let answers = Answers()

        init(_ parts: Parts, head: Head?) {
            self.parts = parts
            self.head =
                head
                ?? Head(
                    status: parts.status,
                    headerFields: parts.headerFields,
                    times: (request: parts.requestTime, response: parts.responseTime)
                )
        }
    }

    /// The stored values.
    private struct Parts {
        var key: CacheKey
        var varyingHeaderValues: [String: String]
        var status: Int
        var headerFields: HTTPFields
        var body: Data
        var url: URL
        var requestTime: Date
        var responseTime: Date
    }

    /// Replaces the storage with one changed by `change`. The ``Head`` is worked out again when `head` says the
    /// change touches what it is made from; the ``Answers`` always start over.
    private mutating func change(head: Bool = false, _ change: (inout Parts) -> Void) {
        var parts = storage.parts
        change(&parts)
        storage = Storage(parts, head: head ? nil : storage.head)
    }

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
        storage = Storage(
            Parts(
                key: key,
                varyingHeaderValues: varyingHeaderValues,
                status: status,
                headerFields: headerFields,
                body: body,
                url: url,
                requestTime: requestTime,
                responseTime: responseTime
            ),
            head: nil
        )
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
    var freshnessLifetime: TimeInterval { head.lifetime }

    /// The answer's age at `now`, in seconds (RFC 9111 section 4.2.3): its `Age`, the time it spent in transit and
    /// the time since it arrived.
    func age(at now: Date) -> TimeInterval {
        head.initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the answer is fresh at `now`: younger than its ``freshnessLifetime``.
    func isFresh(at now: Date) -> Bool {
        age(at: now) < freshnessLifetime
    }

    /// When the answer stops being usable without asking the server: the end of its freshness plus the longer of
    /// its `stale-while-revalidate` and `stale-if-error` windows. ``CacheStore/removeExpired(now:)`` removes answers
    /// past it.
    public var expiry: Date {
        let control = head.control
        let staleWindow = max(control.staleWhileRevalidate ?? 0, control.staleIfError ?? 0)
        return responseTime.addingTimeInterval(head.lifetime - head.initialAge + TimeInterval(staleWindow))
    }

    // MARK: - Equality and coding (of the stored values only: the rest is worked out from them)

    public static func == (lhs: CachedResponse, rhs: CachedResponse) -> Bool {
        lhs.storage === rhs.storage
            || lhs.key == rhs.key && lhs.varyingHeaderValues == rhs.varyingHeaderValues && lhs.status == rhs.status
                && lhs.headerFields == rhs.headerFields && lhs.body == rhs.body && lhs.url == rhs.url
                && lhs.requestTime == rhs.requestTime && lhs.responseTime == rhs.responseTime
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(varyingHeaderValues)
        hasher.combine(status)
        hasher.combine(headerFields)
        hasher.combine(body)
        hasher.combine(url)
        hasher.combine(requestTime)
        hasher.combine(responseTime)
    }

    private enum CodingKeys: String, CodingKey {
        case key, varyingHeaderValues, status, headerFields, body, url, requestTime, responseTime
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            key: try container.decode(CacheKey.self, forKey: .key),
            varyingHeaderValues: try container.decode([String: String].self, forKey: .varyingHeaderValues),
            status: try container.decode(Int.self, forKey: .status),
            headerFields: try container.decode(HTTPFields.self, forKey: .headerFields),
            body: try container.decode(Data.self, forKey: .body),
            url: try container.decode(URL.self, forKey: .url),
            requestTime: try container.decode(Date.self, forKey: .requestTime),
            responseTime: try container.decode(Date.self, forKey: .responseTime)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(varyingHeaderValues, forKey: .varyingHeaderValues)
        try container.encode(status, forKey: .status)
        try container.encode(headerFields, forKey: .headerFields)
        try container.encode(body, forKey: .body)
        try container.encode(url, forKey: .url)
        try container.encode(requestTime, forKey: .requestTime)
        try container.encode(responseTime, forKey: .responseTime)
    }
}

extension CachedResponse {
    /// The parts of a stored answer's header fields a lookup uses: its `Cache-Control` directives, freshness
    /// lifetime, corrected initial age and `Vary`.
    struct Head: Sendable {
        let control: CacheControl
        /// The freshness lifetime (RFC 9111 section 4.2.1).
        let lifetime: TimeInterval
        /// The corrected initial age (RFC 9111 section 4.2.3).
        let initialAge: TimeInterval
        /// The `Vary` field's value, `nil` when the answer has none.
        let vary: String?

        init(status: Int, headerFields: HTTPFields, times: (request: Date, response: Date)) {
            control = CacheControl(headerFields)
            let date = CacheRules.date(headerFields, .date) ?? times.response
            lifetime = CacheRules.lifetime(status: status, fields: headerFields, date: date, control: control)
            initialAge = CacheRules.initialAge(
                fields: headerFields,
                date: date,
                requestTime: times.request,
                responseTime: times.response
            )
            vary = headerFields[.vary]
        }
    }
}
