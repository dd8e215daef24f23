/// How a response may be cached. Carried on every request for caching middleware to act on; RequestKit's core
/// itself caches nothing.
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Sendable, Hashable {
        case none
        case reuse(maxAge: Duration)
    }
    private let value: Value

    /// Never cache (the default).
    public static let none = CachePolicy(value: .none)

    /// A successful response may be reused for `maxAge`.
    public static func reuse(maxAge: Duration) -> CachePolicy {
        CachePolicy(value: .reuse(maxAge: maxAge))
    }

    /// How long a response may be reused, or `nil` when it must not be cached.
    public var maxAge: Duration? {
        if case .reuse(let maxAge) = value { return maxAge }
        return nil
    }

    public var description: String {
        switch value {
        case .none: "none"
        case .reuse(let maxAge): "reuse(maxAge: \(maxAge))"
        }
    }
}
