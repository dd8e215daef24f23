/// How a request uses the client's HTTP cache (``RequestClient/Configuration/cache``).
///
/// Every request carries one; without a configured cache it changes nothing. The default, ``useProtocol``,
/// follows the rules of HTTP caching (RFC 9111): what the server allows to be stored is stored, a fresh stored
/// answer is reused, a stale one is revalidated.
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Sendable, Hashable {
        case none
        case useProtocol
        case reload
        case reuse(maxAge: Duration)
        case onlyIfCached
    }
    private let value: Value

    /// The rules of HTTP caching (RFC 9111), as the server's `Cache-Control`, `Expires` and validators say (the
    /// default).
    public static let useProtocol = CachePolicy(value: .useProtocol)

    /// Bypass the cache entirely: no stored answer is used and the answer is not stored. (A successful unsafe
    /// request still removes the stored answers for its URL, whatever its policy.)
    public static let none = CachePolicy(value: .none)

    /// Ignore stored answers: the request is sent without validators and its answer is stored if the server allows
    /// it, replacing what was stored.
    public static let reload = CachePolicy(value: .reload)

    /// Offline: answer only from the cache, fresh or stale, and never send the request. Without a usable stored
    /// answer the request fails with ``RequestKitError/Code/notCached``. A stale answer the server marked
    /// `must-revalidate` or `no-cache` is not usable.
    public static let onlyIfCached = CachePolicy(value: .onlyIfCached)

    /// Reuse a stored answer younger than `maxAge` even when the server says it is stale or must be revalidated;
    /// an older one is revalidated as under ``useProtocol``. What is stored still follows the protocol, so an answer
    /// marked `no-store` is never reused.
    public static func reuse(maxAge: Duration) -> CachePolicy {
        CachePolicy(value: .reuse(maxAge: maxAge))
    }

    /// The age up to which a stored answer is reused whatever the server said, for ``reuse(maxAge:)``; otherwise
    /// `nil`.
    public var maxAge: Duration? {
        if case .reuse(let maxAge) = value { return maxAge }
        return nil
    }

    /// Whether the cache is bypassed entirely (``none``).
    var bypassesCache: Bool { value == .none }
    /// Whether stored answers are ignored (``reload``).
    var reloads: Bool { value == .reload }
    /// Whether only stored answers may be used (``onlyIfCached``).
    var answersOnlyFromCache: Bool { value == .onlyIfCached }

    public var description: String {
        switch value {
        case .none: "none"
        case .useProtocol: "useProtocol"
        case .reload: "reload"
        case .reuse(let maxAge): "reuse(maxAge: \(maxAge))"
        case .onlyIfCached: "onlyIfCached"
        }
    }
}
