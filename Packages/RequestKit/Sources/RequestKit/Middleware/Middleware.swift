/// A step of the ordered middleware chain between the client and the transport.
///
/// Middleware sees every request just before it is sent and every response head as it comes back. It can change the
/// request, answer without calling `next`, call `next` more than once (a retry: bodies are replayable), or throw.
/// The chain runs in the order the middleware was configured: the first one is the outermost.
/// Authentication refresh, retries, caching and coalescing of duplicate requests plug in here.
public protocol Middleware: Sendable {
    /// Handles `request`, calling `next` to pass it on towards the transport.
    ///
    /// The chain calls each step on the caller's executor (`nonisolated(nonsending)`), so a step costs no hop to
    /// another executor on the way in and none on the way back. A plain `async` method satisfies the requirement
    /// too; it then runs on the global concurrent executor, as any nonisolated `async` function does.
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: @Sendable (ClientRequest) async throws -> ClientResponse
    ) async throws -> ClientResponse
}

/// The `next` of RequestKit's own steps: it runs on the caller's executor, like the steps themselves.
///
/// The public ``Middleware`` form takes a plain `async` closure: each call of one hops to the global concurrent
/// executor, and its return hops back, which costs more than the rest of a step's own work. The chain hands its own
/// steps a `next` of this type instead.
typealias ChainNext = nonisolated(nonsending) @Sendable (ClientRequest) async throws -> ClientResponse

/// A step of RequestKit's own that the chain calls with a ``ChainNext``. Its ``Middleware`` form, for a caller that
/// has only a plain closure, forwards to this one.
protocol InlineMiddleware: Middleware {
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        inline next: ChainNext
    ) async throws -> ClientResponse
}

extension InlineMiddleware {
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: @Sendable (ClientRequest) async throws -> ClientResponse
    ) async throws -> ClientResponse {
        try await intercept(request, inline: next)
    }
}
