/// Whether the environment's host can be reached.
public struct ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Sendable, Hashable {
        case unknown
        case reachable
        case unreachable(String)
    }
    private let value: Value

    /// Not probed yet.
    public static let unknown = ReachabilityStatus(value: .unknown)
    /// The host answered the last probe.
    public static let reachable = ReachabilityStatus(value: .reachable)

    /// The host could not be reached, and why.
    public static func unreachable(_ reason: String) -> ReachabilityStatus {
        ReachabilityStatus(value: .unreachable(reason))
    }

    /// Whether the host is known to be unreachable.
    public var isUnreachable: Bool {
        if case .unreachable = value { return true }
        return false
    }

    /// Why the host is unreachable, if it is.
    public var reason: String? {
        if case .unreachable(let reason) = value { return reason }
        return nil
    }

    public var description: String {
        switch value {
        case .unknown: "unknown"
        case .reachable: "reachable"
        case .unreachable(let reason): "unreachable (\(reason))"
        }
    }
}
