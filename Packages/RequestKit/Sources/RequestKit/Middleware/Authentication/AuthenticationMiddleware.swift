import Foundation
import HTTPTypes
import Synchronization

/// Applies an ``Authenticator``'s credential, refreshes it once when the server rejects it, and replays the
/// request; the decisions are a ``RefreshStateMachine``'s, shared by all requests of the client.
struct AuthenticationMiddleware<A: Authenticator>: Middleware {
    typealias Waiter = CheckedContinuation<A.Credential, any Error>

    /// The refresh state of one client, shared by its requests.
    final class SharedState: Sendable {
        let machine: Mutex<RefreshStateMachine<A.Credential, Waiter>>
        let waiterIDs = Atomic<UInt64>(0)

        init(initial: A.Credential?) {
            machine = Mutex(RefreshStateMachine(initial: initial))
        }
    }

    let authenticator: A
    let state: SharedState

    init(authenticator: A) {
        self.authenticator = authenticator
        self.state = SharedState(initial: authenticator.initialCredential)
    }

    func intercept(
        _ request: ClientRequest,
        next: @Sendable (ClientRequest) async throws -> ClientResponse
    ) async throws -> ClientResponse {
        let sent = try await credential(replacing: nil, for: request)
        var first = request
        try apply(sent, to: &first)
        let response = try await next(first)
        guard authenticator.isRejected(response, for: first) else { return response }
        await RetryMiddleware.discard(response.body)
        if let body = request.body, !body.isReplayable {
            throw RetryMiddleware.notReplayable(
                request,
                after: .success(response),
                because: "the server rejected the credential and the body is a one-shot stream"
            )
        }
        let fresh = try await credential(replacing: .some(sent), for: request)
        var replay = request
        try apply(fresh, to: &replay)
        let second = try await next(replay)
        guard authenticator.isRejected(second, for: replay) else { return second }
        await RetryMiddleware.discard(second.body)
        throw RequestKitError(
            code: .authenticationFailed,
            subject: request.url.absoluteString,
            reason: "the server rejected the refreshed credential too",
            operation: request.operation,
            url: request.url,
            status: second.status.code
        )
    }

    private func apply(_ credential: A.Credential, to request: inout ClientRequest) throws {
        do {
            try authenticator.apply(credential, to: &request)
        } catch {
            throw RequestKitError.refusing(request, because: error, reason: "the authenticator refused the request")
        }
    }

    /// The credential to send: the current one, or one from a refresh this request starts or waits for.
    private func credential(
        replacing rejected: A.Credential??,
        for request: ClientRequest
    ) async throws
        -> A.Credential
    {
        if rejected == nil, let usable = state.machine.withLock({ $0.usable }) { return usable }
        let id = state.waiterIDs.add(1, ordering: .relaxed).newValue
        let state = self.state
        let authenticator = self.authenticator
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let action = state.machine.withLock { $0.credential(replacing: rejected, waiter: waiter, id: id) }
                switch action {
                case .use(let credential):
                    waiter.resume(returning: credential)
                case .wait:
                    break
                case .startRefresh(let refused):
                    // The refresh runs on its own, so that one waiter's cancellation does not cancel it for all.
                    Task {
                        let result: Result<A.Credential, any Error>
                        do {
                            result = .success(try await authenticator.refresh(rejected: refused))
                        } catch {
                            result = .failure(
                                RequestKitError(
                                    code: .authenticationFailed,
                                    subject: "credential refresh",
                                    reason: "the credential could not be refreshed",
                                    underlying: error
                                )
                            )
                        }
                        let waiters = state.machine.withLock { $0.refreshEnded(with: try? result.get()) }
                        for waiter in waiters { waiter.resume(with: result) }
                    }
                }
            }
        } onCancel: {
            if let waiter = state.machine.withLock({ $0.remove(id) }) {
                waiter.resume(
                    throwing: RequestKitError(
                        code: .cancelled,
                        subject: request.url.absoluteString,
                        reason: "the request was cancelled while its credential was refreshed",
                        operation: request.operation,
                        url: request.url
                    )
                )
            }
        }
    }
}
