import Foundation

/// The decisions of one request's retries, without I/O: after each attempt, whether to try again and after how
/// long. The ``RetryMiddleware`` feeds it outcomes and the clock.
struct RetryStateMachine {
    /// How an attempt ended.
    enum Outcome {
        /// A response arrived with this status and `Retry-After` field.
        case status(Int, retryAfter: String?)
        /// The attempt failed.
        case failure(RequestKitError)
    }

    /// What to do next.
    enum Decision: Equatable {
        /// Send the request again after waiting this long.
        case retry(after: Duration)
        /// Report this attempt's outcome.
        case stop
    }

    let policy: RetryPolicy
    /// Whether the server may see the request again: an idempotent method or an idempotency key.
    let replayable: Bool
    /// When the policy's deadline passes, if it has one.
    let deadline: ContinuousClock.Instant?
    /// The number of the attempt whose outcome comes next, from 1.
    private(set) var attempt = 1

    /// A machine for a request whose first attempt starts now; `now` is asked only when the policy has a deadline.
    init(policy: RetryPolicy, replayable: Bool, now: () -> ContinuousClock.Instant) {
        self.policy = policy
        self.replayable = replayable
        self.deadline = policy.deadline.map { now() + $0 }
    }

    /// Decides what follows `outcome` of the current attempt.
    ///
    /// - Parameters:
    ///   - now: the monotonic time the outcome arrived.
    ///   - date: the wall-clock time, for a `Retry-After` date.
    ///   - random: a number in `0...1` for the jitter.
    mutating func decide(
        after outcome: Outcome,
        now: ContinuousClock.Instant,
        date: Date,
        random: () -> Double
    ) -> Decision {
        guard attempt < policy.maximumAttempts, isRetryable(outcome) else { return .stop }
        var delay = policy.backoff(beforeRetry: attempt)
        if policy.jitter.spreads {
            delay = .seconds(RetryPolicy.seconds(delay) * min(max(random(), 0), 1))
        }
        if case .status(_, let field?) = outcome, let requested = Self.retryAfter(field, now: date) {
            // The server's wait is a floor: a retry never goes out sooner. A wait longer than the policy allows
            // ends the retries with the answer at hand rather than retrying early.
            guard requested <= policy.maximumBackoff else { return .stop }
            delay = max(delay, requested)
        }
        if let deadline, now + delay >= deadline { return .stop }
        attempt += 1
        return .retry(after: delay)
    }

    /// Whether a response with `status` to the current attempt could be retried; when not, ``decide(after:now:date:random:)``
    /// would stop.
    func mayRetry(status: Int) -> Bool {
        attempt < policy.maximumAttempts && replayable && policy.retryableStatuses.contains(status)
    }

    private func isRetryable(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .status(let status, _):
            return replayable && policy.retryableStatuses.contains(status)
        case .failure(let error):
            // A refused connection sent nothing, so any method may go again.
            return (replayable || error.code == .connectionRefused) && policy.retriesError(error)
        }
    }

    /// The wait a `Retry-After` field asks for (RFC 9110 section 10.2.3): delay-seconds or an HTTP date, a date in
    /// the past being no wait; `nil` when the field is neither.
    static func retryAfter(_ field: String, now: Date) -> Duration? {
        let text = field.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than an Int holds is a very long wait.
            return .seconds(Int64(text) ?? Int64.max)
        }
        guard let date = CookieDate.parse(text) else { return nil }
        return .seconds(max(date.timeIntervalSince(now), 0))
    }
}
