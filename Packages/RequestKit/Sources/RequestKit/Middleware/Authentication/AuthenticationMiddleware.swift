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
        /// The machine's usable credential, ready to apply. It is set only while `machine` is locked, so it always
        /// says what the machine says.
        let usable: Mutex<UsableCredential?>

        init(initial: A.Credential?, authenticator: A) {
            machine = Mutex(RefreshStateMachine(initial: initial))
            usable = Mutex(initial.map { UsableCredential($0, of: authenticator) })
        }

        /// Changes the machine, and the usable credential with it.
        func update<Result>(
            _ authenticator: A,
            _ change: (inout RefreshStateMachine<A.Credential, Waiter>) -> Result
        ) -> Result {
            machine.withLock { machine in
                let result = change(&machine)
                let credential = machine.usable
                usable.withLock { usable in
                    if let credential {
                        // The same credential keeps its prepared form.
                        if let kept = usable?.credential as? A.Credential, kept == credential { return }
                        usable = UsableCredential(credential, of: authenticator)
                    } else {
                        usable = nil
                    }
                }
                return result
            }
        }
    }

    let authenticator: A
    let state: SharedState

    init(authenticator: A) {
        self.authenticator = authenticator
        self.state = SharedState(initial: authenticator.initialCredential, authenticator: authenticator)
    }

    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        // The common case, a credential usable at once: one lock of a type that does not depend on `A`, no async
        // call of its own, and no value of a type that does (in code that is not specialized, each such type is
        // looked up at run time).
        guard let usable = state.usable.withLock({ $0 }) else {
            return try await awaitingCredential(request, next: next)
        }
        var first = request
        try usable.apply(to: &first)
        let response = try await next(first)
        guard authenticator.isRejected(response, for: first) else { return response }
        return try await replay(request, rejected: response, sentWith: usable.credential, next: next)
    }

    /// A request sent when no credential is usable at once: the first one is on its way, or a refresh is.
    private nonisolated(nonsending) func awaitingCredential(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        let credential = try await self.credential(replacing: nil, for: request)
        var first = request
        try apply(credential, to: &first)
        let response = try await next(first)
        guard authenticator.isRejected(response, for: first) else { return response }
        return try await replay(request, rejected: response, sentWith: credential, next: next)
    }

    /// After the server rejected the credential `sent`: refreshes it (or waits for the refresh under way, or takes
    /// the one that replaced it) and sends the request once more.
    private nonisolated(nonsending) func replay(
        _ request: ClientRequest,
        rejected response: ClientResponse,
        sentWith sent: any Sendable,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        await RetryMiddleware.discard(response.body)
        if let body = request.body, !body.isReplayable {
            throw RetryMiddleware.notReplayable(
                request,
                after: .success(response),
                because: "the server rejected the credential and the body is a one-shot stream"
            )
        }
        let fresh = try await credential(replacing: .some(sent as? A.Credential), for: request)
        var replay = request
        try apply(fresh, to: &replay)
        let second = try await next(replay)
        guard authenticator.isRejected(second, for: replay) else { return second }
        await RetryMiddleware.discard(second.body)
        throw RequestKitError(
            .authenticationFailed,
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
                let action = state.update(authenticator) {
                    $0.credential(replacing: rejected, waiter: waiter, id: id)
                }
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
                                    .authenticationFailed,
                                    subject: "credential refresh",
                                    reason: "the credential could not be refreshed",
                                    underlying: error
                                )
                            )
                        }
                        let waiters = state.update(authenticator) { $0.refreshEnded(with: try? result.get()) }
                        for waiter in waiters { waiter.resume(with: result) }
                    }
                }
            }
        } onCancel: {
            if let waiter = state.machine.withLock({ $0.remove(id) }) {
                waiter.resume(
                    throwing: RequestKitError(
                        .cancelled,
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

/// A credential requests can use now, with its authenticator's way of putting it on a request.
///
/// It is not generic, so that the authentication step's common path (whose code is not specialized: the
/// authenticator's type is known only at run time) looks up no generic type per request.
final class UsableCredential: Sendable {
    /// The credential, for telling the machine which one the server rejected.
    let credential: any Sendable
    private let applying: @Sendable (inout ClientRequest) throws -> Void

    init<A: Authenticator>(_ credential: A.Credential, of authenticator: A) {
        self.credential = credential
        if let token = credential as? String, authenticator is BearerTokenAuthenticator {
            // A bearer token's field is made once per token, here, rather than for each request.
            let field = BearerTokenAuthenticator.field(for: token)
            applying = { request in BearerTokenAuthenticator.put(field, on: &request) }
        } else {
            applying = { request in try authenticator.apply(credential, to: &request) }
        }
    }

    /// Puts the credential on `request`; an authenticator's error refuses the request.
    func apply(to request: inout ClientRequest) throws {
        do {
            try applying(&request)
        } catch {
            throw RequestKitError.refusing(request, because: error, reason: "the authenticator refused the request")
        }
    }
}
