/// What happens when a request is sent while an identical one is still in flight.
///
/// Set it for a client with ``RequestClient/Configuration/duplicatePolicy`` and for one request with
/// ``RequestBuilder/duplicatePolicy(_:)`` or ``Endpoint/duplicatePolicy(_:)``. Only `GET` and `HEAD` requests are
/// compared; others always go through. See <doc:DuplicateRequests>.
public struct DuplicatePolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Sendable, Hashable {
        case allow
        case reject
        case coalesce
    }
    private let value: Value

    /// Every request is sent, duplicates included (the default).
    public static let allow = DuplicatePolicy(value: .allow)
    /// A request identical to one in flight fails at once with ``RequestKitError/Code/redundantRequest`` and
    /// nothing is sent.
    public static let reject = DuplicatePolicy(value: .reject)
    /// Identical requests share one request to the server, and each caller gets the same response (its own copy
    /// of the body, collected in memory up to ``RequestClient/Configuration/maximumBodySize``).
    public static let coalesce = DuplicatePolicy(value: .coalesce)

    var isAllow: Bool { value == .allow }
    var isReject: Bool { value == .reject }
    var isCoalesce: Bool { value == .coalesce }

    public var description: String {
        switch value {
        case .allow: "allow"
        case .reject: "reject"
        case .coalesce: "coalesce"
        }
    }
}
