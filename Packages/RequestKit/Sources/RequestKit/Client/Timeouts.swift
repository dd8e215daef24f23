/// How long a request may take.
///
/// `perAttempt` bounds one exchange with the server, from connecting to the last byte of the body, and is enforced
/// by the transport; `overall` bounds the whole call including middleware and decoding, and is enforced by the
/// client. A server that stalls mid-body runs into either and gives ``RequestKitError/Code/timedOut``.
public struct Timeouts: Sendable, Hashable {
    /// The longest one attempt may take, or `nil` for the transport's default.
    public var perAttempt: Duration?
    /// The longest the whole call may take, or `nil` for no limit.
    public var overall: Duration?

    /// Creates timeouts.
    public init(perAttempt: Duration? = nil, overall: Duration? = nil) {
        self.perAttempt = perAttempt
        self.overall = overall
    }
}
