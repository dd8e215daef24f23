import Foundation
import HTTPTypes
import RequestKit
import Synchronization

/// The client's duplicate-request step (``DuplicatePolicy``) written again from RequestKit's public API alone, as a
/// user would write it: it rejects a `GET` or `HEAD` identical to one in flight, or lets identical requests share
/// one request to the server. `DuplicateStepTests` runs the built-in step's tests against it.
///
/// It is installed as ordinary middleware (`configuration.middleware`), with the client's policy set to
/// ``DuplicatePolicy/allow`` so that the built-in step stays out of the way; a request's own policy wins.
struct CoalescingMiddleware: Middleware {
    /// What every waiter of a shared request gets: the response with its body collected.
    struct SharedResponse: Sendable {
        var status: HTTPResponse.Status
        var headerFields: HTTPFields
        var url: URL
        var body: Data
    }

    typealias Waiter = CheckedContinuation<SharedResponse, any Error>

    /// Thrown inside to send a request alone when it cannot be shared.
    private struct SendAlone: Error {}

    /// Where a waiter is registered, and whether it was cancelled before it was.
    private final class Registration: Sendable {
        let state = Mutex<(entry: UInt64?, cancelled: Bool)>((nil, false))
    }

    /// The requests in flight of the client this step belongs to.
    private final class State: Sendable {
        let registry = Mutex(InFlightRequests<RequestKey, Waiter, Task<Void, Never>>())
        let waiterIDs = Atomic<UInt64>(0)
    }

    let policy: DuplicatePolicy
    let maximumBodySize: Int
    private let state = State()

    init(policy: DuplicatePolicy, maximumBodySize: Int = 64 * 1024 * 1024) {
        self.policy = policy
        self.maximumBodySize = maximumBodySize
    }

    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let policy = request.duplicatePolicy ?? self.policy
        guard policy != .allow, request.method == .get || request.method == .head else {
            return try await next(request)
        }
        let key = RequestKey(request)
        guard policy == .coalesce else { return try await sendExclusive(request, key, next: next) }
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

    private nonisolated(nonsending) func sendExclusive(
        _ request: ClientRequest,
        _ key: RequestKey,
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

    /// Leads or joins the shared request for `key` and waits for its outcome. The shared request keeps `next`: it
    /// runs in a task of its own, which outlives the caller that started it while others wait for it.
    private func join(_ request: ClientRequest, _ key: RequestKey, next: MiddlewareNext) async throws -> SharedResponse
    {
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

    private static func leave(
        _ state: State,
        _ key: RequestKey,
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

/// What makes two requests the same: the method, the URL, the fields that select the response, and a digest of the
/// credentials (never the credentials themselves).
struct RequestKey: Hashable, Sendable {
    private static let varyingFields: [HTTPField.Name] = [
        .accept, .acceptEncoding, .acceptLanguage, .range, .ifNoneMatch, .ifModifiedSince, .ifRange,
    ]
    private static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    let method: HTTPRequest.Method
    let url: String
    let fields: [String?]
    let credentialDigest: Int?

    init(_ request: ClientRequest) {
        method = request.method
        url = request.url.absoluteString
        fields = Self.varyingFields.map { request.headerFields[$0] }
        let credentials = Self.credentialFields.map { request.headerFields[$0] }
        if credentials.allSatisfy({ $0 == nil }) {
            credentialDigest = nil
        } else {
            var hasher = Hasher()
            for credential in credentials { hasher.combine(credential) }
            credentialDigest = hasher.finalize()
        }
    }
}
