import Foundation
import HTTPTypes
import Synchronization

/// Applies the ``DuplicatePolicy`` of `GET` and `HEAD` requests: rejects a request identical to one in flight, or
/// lets identical requests share one request to the server. The decisions are an ``InFlightRegistry``'s.
struct DuplicateRequestMiddleware: Middleware {
    /// What every waiter of a shared request gets: the response with its body collected.
    struct SharedResponse: Sendable {
        var status: HTTPResponse.Status
        var headerFields: HTTPFields
        var url: URL
        var body: Data
    }

    typealias Waiter = CheckedContinuation<SharedResponse, any Error>
    typealias Registry = InFlightRegistry<RequestIdentity, Waiter, Task<Void, Never>>

    /// The requests in flight of one client.
    final class SharedState: Sendable {
        let registry = Mutex(Registry())
        let waiterIDs = Atomic<UInt64>(0)
    }

    /// Where a waiter is registered, and whether it was cancelled before it was.
    private final class Registration: Sendable {
        let state = Mutex<(entry: UInt64?, cancelled: Bool)>((nil, false))
    }

    /// Thrown inside to send a request alone when it cannot be shared.
    private struct SendAlone: Error {}

    let policy: DuplicatePolicy
    let maximumBodySize: Int
    let state = SharedState()

    /// Coalesced requests keep `next` for the shared request, which outlives the caller that started it while
    /// others wait for it. The client sends only `GET` and `HEAD` requests whose policy is not
    /// ``DuplicatePolicy/allow`` through this step; the others pass on unchanged when they arrive all the same.
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let policy = request.duplicatePolicy ?? self.policy
        guard !policy.isAllow, request.method == .get || request.method == .head else { return try await next(request) }
        let key = RequestIdentity(request)
        guard policy.isCoalesce else { return try await sendExclusive(request, key, next: next) }
        do {
            let shared = try await join(request, key, next: next)
            return ClientResponse(
                status: shared.status,
                headerFields: shared.headerFields,
                body: ClientResponse.Body(data: shared.body),
                url: shared.url
            )
        } catch is SendAlone {
            return try await next(request)
        }
    }

    /// Sends a request registered as in flight, or rejects it when an identical one is.
    private nonisolated(nonsending) func sendExclusive(
        _ request: ClientRequest,
        _ key: RequestIdentity,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let arrival = state.registry.withLock { $0.arrive(key, coalescing: false, waiter: 0, nil) }
        guard case .exclusive(let entry) = arrival else {
            throw RequestKitError(
                .redundantRequest,
                subject: request.url.absoluteString,
                reason: "an identical request is in flight; nothing was sent",
                operation: request.operation,
                url: request.url
            )
        }
        defer { state.registry.withLock { $0.finishExclusive(key, entry: entry) } }
        return try await next(request)
    }

    /// Leads or joins the shared request for `key` and waits for its outcome.
    private func join(
        _ request: ClientRequest,
        _ key: RequestIdentity,
        next: MiddlewareNext
    ) async throws -> SharedResponse {
        let state = self.state
        let limit = maximumBodySize
        let id = state.waiterIDs.add(1, ordering: .relaxed).newValue
        let registration = Registration()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let arrival = state.registry.withLock { $0.arrive(key, coalescing: true, waiter: id, waiter) }
                let entry: UInt64
                switch arrival {
                case .lead(let shared):
                    entry = shared
                    let work = Task {
                        let result = await Self.run(request, next: next, limit: limit)
                        let waiters = state.registry.withLock { $0.finishShared(key, entry: shared) }
                        for waiter in waiters { waiter.resume(with: result) }
                    }
                    if !state.registry.withLock({ $0.attach(work, to: key, entry: shared) }) { work.cancel() }
                case .join(let shared):
                    entry = shared
                case .bypass, .exclusive, .reject:
                    waiter.resume(throwing: SendAlone())
                    return
                }
                let cancelled = registration.state.withLock { registered in
                    registered.entry = entry
                    return registered.cancelled
                }
                if cancelled { Self.leave(state, key, entry: entry, waiter: id, request) }
            }
        } onCancel: {
            let entry = registration.state.withLock { registered in
                registered.cancelled = true
                return registered.entry
            }
            if let entry { Self.leave(state, key, entry: entry, waiter: id, request) }
        }
    }

    /// Takes a cancelled waiter out: it fails with ``RequestKitError/Code/cancelled``, and the shared request is
    /// cancelled when nobody waits for it any more.
    private static func leave(
        _ state: SharedState,
        _ key: RequestIdentity,
        entry: UInt64,
        waiter id: UInt64,
        _ request: ClientRequest
    ) {
        let (waiter, work) = state.registry.withLock { $0.leave(key, entry: entry, waiter: id) }
        work?.cancel()
        waiter?.resume(
            throwing: RequestKitError(
                .cancelled,
                subject: request.url.absoluteString,
                reason: "the request was cancelled",
                operation: request.operation,
                url: request.url
            )
        )
    }

    /// Sends the shared request and collects its body for every waiter.
    private static func run(
        _ request: ClientRequest,
        next: MiddlewareNext,
        limit: Int
    ) async -> Result<SharedResponse, any Error> {
        do {
            let response = try await next(request)
            let body: Data
            do {
                body = try await response.body.collect(upTo: limit)
            } catch let error as RequestKitError where error.code == .bodyTooLarge {
                throw RequestKitError(
                    .bodyTooLarge,
                    subject: request.url.absoluteString,
                    reason: "a coalesced response is held in memory and this one is larger than maximumBodySize "
                        + "(\(limit) bytes); send it with DuplicatePolicy.allow",
                    operation: request.operation,
                    url: request.url,
                    status: response.status.code
                )
            }
            return .success(
                SharedResponse(
                    status: response.status,
                    headerFields: response.headerFields,
                    url: response.url,
                    body: body
                )
            )
        } catch {
            return .failure(error)
        }
    }
}
