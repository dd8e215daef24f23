import Foundation
import HTTPTypes

/// Sends a request again after a transient failure, as a ``RetryPolicy`` says; the decisions are a
/// ``RetryStateMachine``'s.
///
/// Everything below it (authentication, the configuration's middleware, decorators, the transport) runs once per
/// attempt, and each attempt has its own per-attempt timeout.
struct RetryMiddleware: Middleware {
    let policy: RetryPolicy
    let observers: [any RequestObserver]
    /// The policy's idempotent methods, compared one by one: a set hashes the method's name for every request.
    private let idempotentMethods: [HTTPRequest.Method]
    /// The policy's retryable statuses from 0 to 1023, one bit each, so that an answer that is not retried is told
    /// apart without hashing its status; statuses beyond it are looked up in the policy.
    private let retryableStatusBits: [UInt64]

    /// The field that lets a server apply a request at most once (IETF draft `httpapi-idempotency-key-header`).
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")
    /// The most bytes of a failed attempt's body read before it is dropped, so that a small error body leaves the
    /// connection reusable and a large one does not hold up the retry.
    static let drainLimit = 64 * 1024

    init(policy: RetryPolicy, observers: [any RequestObserver]) {
        self.policy = policy
        self.observers = observers
        idempotentMethods = Array(policy.idempotentMethods)
        var bits = [UInt64](repeating: 0, count: 16)
        for status in policy.retryableStatuses where (0..<1024).contains(status) {
            bits[status >> 6] |= 1 << UInt64(status & 63)
        }
        retryableStatusBits = bits
    }

    /// Whether the policy retries an answer with `status`.
    private func retries(status: Int) -> Bool {
        guard (0..<1024).contains(status) else { return policy.retryableStatuses.contains(status) }
        return retryableStatusBits[status >> 6] & (1 << UInt64(status & 63)) != 0
    }

    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        guard !request.retryMode.isDisabled, policy.maximumAttempts > 1 else { return try await next(request) }
        var replayable = idempotentMethods.contains(request.method)
        // The field is looked for only when it can change something: it makes a request replayable, and one is
        // added when the request asks for it.
        if let name = Self.idempotencyKey, !replayable || request.retryMode.addsIdempotencyKey {
            if request.headerFields[name] != nil {
                replayable = true
            } else if request.retryMode.addsIdempotencyKey || policy.addsIdempotencyKeys {
                var keyed = request
                keyed.headerFields[name] = UUID().uuidString
                return try await attempts(keyed, replayable: true, first: nil, next: next)
            }
        }
        guard policy.deadline == nil, observers.isEmpty || request.observationID == 0, request.attempt == 1 else {
            return try await attempts(request, replayable: replayable, first: nil, next: next)
        }
        // The common case: no deadline, nobody timing attempts. The first attempt goes out as the request is, and
        // the clock, the decisions and a copy of the request are needed only when its outcome may be retried.
        let first: Result<ClientResponse, RequestKitError>
        do {
            let response = try await next(request)
            guard replayable, retries(status: response.status.code) else { return response }
            first = .success(response)
        } catch {
            // Cancellation and errors from outside RequestKit are reported as they are.
            guard let failure = error as? RequestKitError, !Task.isCancelled else { throw error }
            first = .failure(failure)
        }
        return try await attempts(request, replayable: replayable, first: first, next: next)
    }

    /// Sends `original` until an attempt's outcome is not retried, starting with the outcome of the first attempt
    /// when it was already sent (`first`).
    private nonisolated(nonsending) func attempts(
        _ original: ClientRequest,
        replayable: Bool,
        first: Result<ClientResponse, RequestKitError>?,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        var request = original
        var first = first
        let observed = !observers.isEmpty && request.observationID != 0
        let clock = ContinuousClock()
        var machine = RetryStateMachine(policy: policy, replayable: replayable) { clock.now }
        let timeout = request.timeouts.perAttempt
        // Without observers and without a deadline, the clock is read only when an attempt is retried.
        let timesAttempts = observed || machine.deadline != nil
        // Why the attempt being sent is a retry, bound to its task (``RetryCause/current``).
        var cause: RetryCause?
        while true {
            request.attempt = machine.attempt
            let began = timesAttempts ? clock.now : nil
            if let deadline = machine.deadline, let began {
                // The deadline is never passed: an attempt gets at most the time left.
                let left = began < deadline ? began.duration(to: deadline) : .zero
                request.timeouts.perAttempt = timeout.map { min($0, left) } ?? left
            }
            let result: Result<ClientResponse, any Error>
            let outcome: RetryStateMachine.Outcome
            if let sent = first {
                // Only an outcome that may be retried arrives here.
                first = nil
                switch sent {
                case .success(let response):
                    result = .success(response)
                    outcome = .status(response.status.code, retryAfter: response.headerFields[.retryAfter])
                case .failure(let failure):
                    result = .failure(failure)
                    outcome = .failure(failure)
                }
            } else {
                do {
                    let response: ClientResponse
                    if let cause {
                        response = try await RetryCause.$current.withValue(cause) { try await next(request) }
                    } else {
                        response = try await next(request)
                    }
                    // An answer that is not retried goes back as it is; its `Retry-After` is never read.
                    guard machine.mayRetry(status: response.status.code) else {
                        if observed, let began {
                            report(
                                request,
                                .success(response),
                                duration: began.duration(to: clock.now),
                                retryDelay: nil
                            )
                        }
                        return response
                    }
                    result = .success(response)
                    outcome = .status(response.status.code, retryAfter: response.headerFields[.retryAfter])
                } catch {
                    // Cancellation and errors from outside RequestKit are reported as they are.
                    guard let failure = error as? RequestKitError, !Task.isCancelled else { throw error }
                    result = .failure(failure)
                    outcome = .failure(failure)
                }
            }
            let now = clock.now
            let decision = machine.decide(after: outcome, now: now, date: Date()) { Double.random(in: 0...1) }
            let delay: Duration? = if case .retry(let delay) = decision { delay } else { nil }
            if let began { report(request, result, duration: began.duration(to: now), retryDelay: delay) }
            guard let delay else { return try result.get() }
            if case .success(let response) = result { await Self.discard(response.body) }
            if let body = request.body, !body.isReplayable {
                throw Self.notReplayable(request, after: result, because: "its body is a one-shot stream")
            }
            cause = RetryCause(reason: Self.reason(of: result), delay: delay)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw RequestKitError(
                    .cancelled,
                    subject: request.url.absoluteString,
                    reason: "the request was cancelled while waiting to retry",
                    operation: request.operation,
                    url: request.url,
                    underlying: error
                )
            }
        }
    }

    /// What an attempt that is retried ended with, for the next attempt's ``RetryCause``.
    private static func reason(of result: Result<ClientResponse, any Error>) -> String {
        switch result {
        case .success(let response): String(response.status.code)
        case .failure(let error as RequestKitError): error.code.name
        case .failure(let error): String(describing: type(of: error))
        }
    }

    /// Tells observers how an attempt ended.
    private func report(
        _ request: ClientRequest,
        _ result: Result<ClientResponse, any Error>,
        duration: Duration,
        retryDelay: Duration?
    ) {
        guard !observers.isEmpty, request.observationID != 0 else { return }
        var event = RequestAttemptFinished(
            id: request.observationID,
            operation: request.operation,
            method: request.method,
            url: Redaction.redact(request.url),
            attempt: request.attempt,
            duration: duration,
            status: nil,
            error: nil,
            retryDelay: retryDelay
        )
        switch result {
        case .success(let response): event.status = response.status.code
        case .failure(let error): event.error = error as? RequestKitError
        }
        for observer in observers { observer.requestAttemptFinished(event) }
    }

    /// Reads a little of a failed attempt's body and drops the rest, ending its transfer.
    static func discard(_ body: ClientResponse.Body) async {
        var drained = 0
        do {
            for try await chunk in body {
                drained += chunk.count
                if drained > drainLimit { break }
            }
        } catch {
            // The body is not wanted; a failure reading it changes nothing.
        }
    }

    /// The error of an attempt that would be retried but cannot be sent again.
    static func notReplayable(
        _ request: ClientRequest,
        after result: Result<ClientResponse, any Error>,
        because reason: String
    ) -> RequestKitError {
        var error = RequestKitError(
            .invalidRequest,
            subject: request.url.absoluteString,
            reason: "the request cannot be sent again: \(reason)",
            operation: request.operation,
            url: request.url
        )
        switch result {
        case .success(let response): error.status = response.status.code
        case .failure(let failure): error.underlying = failure
        }
        return error
    }
}
