import Foundation
public import HTTPTypes

/// When and how often a failed request is sent again: attempts, exponential backoff with full jitter, a cap on
/// each wait, and a deadline for all attempts together.
///
/// Set it on a client with ``RequestClient/Configuration/retryPolicy``. By default it retries refused connections,
/// connections closed or reset before the response, attempts that timed out, and the statuses 408, 429, 502, 503
/// and 504, for the idempotent methods `GET`, `HEAD`, `PUT`, `DELETE` and `OPTIONS`. `POST` and `PATCH` are retried
/// only when they carry an `Idempotency-Key` field: ask for one per request with ``RetryMode/withIdempotencyKey``,
/// or for all of them with ``addsIdempotencyKeys``. A refused connection is retried for every method, because
/// nothing was sent. See <doc:Retry>.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// configuration.retryPolicy = RetryPolicy(maximumAttempts: 4, initialBackoff: .milliseconds(200))
/// ```
public struct RetryPolicy: Sendable {
    /// How the wait before a retry is spread.
    public struct Jitter: Sendable, Hashable {
        private let isFull: Bool
        /// A random wait between zero and the exponential backoff ("full jitter"), so that many clients failing at
        /// once do not come back at once. The default.
        public static let full = Jitter(isFull: true)
        /// Exactly the exponential backoff, for tests and for a single client.
        public static let none = Jitter(isFull: false)

        var spreads: Bool { isFull }
    }

    /// The most attempts, the first one included (at least 1).
    public var maximumAttempts: Int
    /// The backoff before the first retry; each later one doubles it (times ``backoffMultiplier``).
    public var initialBackoff: Duration
    /// The factor between one backoff and the next.
    public var backoffMultiplier: Double
    /// The longest wait before a retry. A `Retry-After` that asks for longer ends the retries: the call fails with
    /// the answer it has.
    public var maximumBackoff: Duration
    /// How long all attempts and waits together may take, from the first attempt, or `nil` for no limit. An attempt
    /// still waiting for its response head at the deadline is cancelled and fails with
    /// ``RequestKitError/Code/timedOut``; a retry whose wait would end past it is not made.
    public var deadline: Duration?
    /// How the wait is spread.
    public var jitter: Jitter
    /// Response statuses that are retried.
    public var retryableStatuses: Set<Int>
    /// Decides whether a failed attempt's error is retried; by default ``isTransient(_:)``.
    public var retriesError: @Sendable (RequestKitError) -> Bool
    /// Methods retried without an `Idempotency-Key`.
    public var idempotentMethods: Set<HTTPRequest.Method>
    /// Whether `POST` and `PATCH` requests (every method outside ``idempotentMethods``) get an `Idempotency-Key`
    /// field and are retried, as with ``RetryMode/withIdempotencyKey`` on each of them. Off by default.
    public var addsIdempotencyKeys: Bool

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3,
        initialBackoff: Duration = .milliseconds(100),
        backoffMultiplier: Double = 2,
        maximumBackoff: Duration = .seconds(10),
        deadline: Duration? = nil,
        jitter: Jitter = .full,
        retryableStatuses: Set<Int> = [408, 429, 502, 503, 504],
        idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options],
        addsIdempotencyKeys: Bool = false,
        retriesError: @escaping @Sendable (RequestKitError) -> Bool = RetryPolicy.isTransient
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.backoffMultiplier = backoffMultiplier
        self.maximumBackoff = maximumBackoff
        self.deadline = deadline
        self.jitter = jitter
        self.retryableStatuses = retryableStatuses
        self.idempotentMethods = idempotentMethods
        self.addsIdempotencyKeys = addsIdempotencyKeys
        self.retriesError = retriesError
    }

    /// Whether `error` is a failure that may pass by itself: a refused connection
    /// (``RequestKitError/Code/connectionRefused``), a connection closed or reset before the response
    /// (``RequestKitError/isConnectionLost``), or an attempt that timed out (``RequestKitError/Code/timedOut``).
    ///
    /// The client's overall timeout (``Timeouts/overall``) is not among them: it ends the call, retries included.
    public static func isTransient(_ error: RequestKitError) -> Bool {
        error.code == .connectionRefused || error.code == .timedOut
            || (error.code == .transportFailed && error.isConnectionLost)
    }

    /// The exponential backoff before retry number `retry` (1 for the first retry), capped, before jitter.
    func backoff(beforeRetry retry: Int) -> Duration {
        let factor = pow(max(backoffMultiplier, 1), Double(max(retry - 1, 0)))
        let seconds = Self.seconds(initialBackoff) * factor
        let cap = Self.seconds(maximumBackoff)
        guard seconds.isFinite, seconds < cap else { return maximumBackoff }
        return .seconds(max(seconds, 0))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
