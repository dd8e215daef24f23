import Foundation

/// What the HTTP cache does with a request once it has looked in its store: the pure part of a lookup, decided
/// from the request's policy and directives, the stored answer and the time.
enum CacheDecision: Equatable {
    /// Answer with the stored answer; `stale` when it is past its freshness (``CachePolicy/onlyIfCached``,
    /// ``CachePolicy/reuse(maxAge:)`` or the request's `max-stale`).
    case hit(stale: Bool)
    /// Send the request with the stored answer's validators; `byRequest` when the stored answer was fresh but the
    /// request asked for revalidation (`Cache-Control: no-cache`).
    case revalidate(byRequest: Bool)
    /// Answer with the stale stored answer at once and revalidate it in the background: it is within its
    /// `stale-while-revalidate` window (RFC 5861 section 3).
    case hitWhileRevalidating
    /// Nothing usable is stored and the request may not be sent.
    case notCached

    /// A stored answer's directives, age and freshness lifetime at one moment (the directives and lifetime were
    /// parsed when the answer was stored).
    struct Freshness {
        let control: CacheControl
        let age: TimeInterval
        let lifetime: TimeInterval

        init(_ entry: CachedResponse, at now: Date) {
            control = entry.head.control
            age = entry.age(at: now)
            lifetime = entry.head.lifetime
        }

        /// The freshness left, negative for a stale answer, in whole seconds (RFC 9211's `ttl`).
        var ttl: Int { Int((lifetime - age).rounded(.down)) }
    }

    /// Decides for a request with a stored answer whose variant matches it.
    static func decide(
        policy: CachePolicy,
        requestControl: CacheControl,
        entry: CachedResponse,
        now: Date
    ) -> CacheDecision {
        decide(policy: policy, requestControl: requestControl, freshness: Freshness(entry, at: now))
    }

    /// Decides from a stored answer's ``Freshness``.
    ///
    /// The request's own directives (RFC 9111 section 5.2.1) narrow what the server allowed: `max-age` caps the age
    /// of an answer used without validation, `min-fresh` asks for freshness left, `max-stale` accepts an answer that
    /// much past its freshness (never one the server marked `must-revalidate` or `no-cache`), and `only-if-cached`
    /// asks for a stored answer that meets the others or none at all. ``CachePolicy/onlyIfCached`` and
    /// ``CachePolicy/reuse(maxAge:)`` are the caller's own choices and go before them.
    static func decide(policy: CachePolicy, requestControl: CacheControl, freshness: Freshness) -> CacheDecision {
        let control = freshness.control
        let age = freshness.age
        let fresh = age < freshness.lifetime
        if let maxAge = policy.maxAge, age <= maxAge.timeInterval {
            return .hit(stale: !fresh)
        }
        if policy.answersOnlyFromCache {
            if fresh && !control.noCache { return .hit(stale: false) }
            return control.noCache || control.mustRevalidate ? .notCached : .hit(stale: true)
        }
        let youngEnough = requestControl.maxAge.map { age <= TimeInterval($0) } ?? true
        let freshEnough =
            fresh && youngEnough && !control.noCache
            && (requestControl.minFresh.map { freshness.lifetime - age >= TimeInterval($0) } ?? true)
        let staleAccepted =
            !fresh && youngEnough && !control.noCache && !control.mustRevalidate
            && (requestControl.maxStale.map { age - freshness.lifetime <= TimeInterval($0) } ?? false)
        if requestControl.onlyIfCached {
            if freshEnough { return .hit(stale: false) }
            return staleAccepted ? .hit(stale: true) : .notCached
        }
        if freshEnough {
            return requestControl.noCache ? .revalidate(byRequest: true) : .hit(stale: false)
        }
        if staleAccepted, !requestControl.noCache {
            return .hit(stale: true)
        }
        if fresh, !control.noCache {
            // Fresh for the server, but too old or too close to stale for the request.
            return .revalidate(byRequest: true)
        }
        if !fresh, !control.noCache, !control.mustRevalidate, !requestControl.noCache, requestControl.maxAge == nil,
            requestControl.minFresh == nil, let window = control.staleWhileRevalidate,
            age - freshness.lifetime <= TimeInterval(window)
        {
            return .hitWhileRevalidating
        }
        return .revalidate(byRequest: false)
    }

    /// Whether a stale answer may stand in for a failed revalidation (RFC 5861 section 4): within the
    /// `stale-if-error` window of the stored answer or the request, and not marked `must-revalidate` or `no-cache`.
    static func mayServeStaleOnError(entry: CachedResponse, requestControl: CacheControl, now: Date) -> Bool {
        let control = entry.head.control
        guard !control.mustRevalidate, !control.noCache else { return false }
        let window = max(control.staleIfError ?? -1, requestControl.staleIfError ?? -1)
        guard window >= 0 else { return false }
        let staleness = entry.age(at: now) - entry.head.lifetime
        return staleness <= TimeInterval(window)
    }
}

extension Duration {
    /// The duration in seconds.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
