/// Whether one request may be sent again by the client's ``RetryPolicy``.
///
/// Set it with ``RequestBuilder/retry(_:)`` or ``Endpoint/retry(_:)``. Without a retry policy on the client it has
/// no effect.
public struct RetryMode: Sendable, Hashable, CustomStringConvertible {
    private enum Value: Sendable, Hashable {
        case automatic
        case withIdempotencyKey
        case disabled
    }
    private let value: Value

    /// The policy decides: idempotent methods (``RetryPolicy/idempotentMethods``) and requests carrying an
    /// `Idempotency-Key` field are retried; others only when nothing was sent (a refused connection). The default.
    public static let automatic = RetryMode(value: .automatic)
    /// Retried whatever the method: the request gets an `Idempotency-Key` field (a random UUID) unless it has one,
    /// the same for every attempt, so a server that honours the field applies the request at most once. Use it for
    /// `POST` and `PATCH` requests to such servers.
    public static let withIdempotencyKey = RetryMode(value: .withIdempotencyKey)
    /// Never retried: every failure is reported as it happened.
    public static let disabled = RetryMode(value: .disabled)

    var addsIdempotencyKey: Bool { value == .withIdempotencyKey }
    var isDisabled: Bool { value == .disabled }

    public var description: String {
        switch value {
        case .automatic: "automatic"
        case .withIdempotencyKey: "withIdempotencyKey"
        case .disabled: "disabled"
        }
    }
}
