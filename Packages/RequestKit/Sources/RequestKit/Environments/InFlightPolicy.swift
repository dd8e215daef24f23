/// What happens to requests in flight when the environment switches.
public struct InFlightPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Value: String, Sendable, Hashable {
        case finish
        case cancel
    }
    private let value: Value

    /// Requests already sent finish against the environment they were sent to (the default).
    public static let finish = InFlightPolicy(value: .finish)
    /// Requests in flight are cancelled and fail with ``RequestKitError/Code/cancelled``.
    public static let cancel = InFlightPolicy(value: .cancel)

    public var description: String { value.rawValue }
}
