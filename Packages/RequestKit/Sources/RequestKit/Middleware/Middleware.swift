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
/// steps a `next` of this type instead: the chain and the step to go on from, so that calling it goes straight to
/// the chain, with no closure context to allocate and no closure's frame in between.
enum ChainNext: Sendable {
    /// The chain's steps from `index` on, then the transport, within `lock`.
    case chain(MiddlewareChain, from: Int, steps: [any Middleware], lock: MiddlewareChain.HostLock)
    /// A `next` handed to a step through its ``Middleware`` form.
    case closure(@Sendable (ClientRequest) async throws -> ClientResponse)

    /// Sends `request` on.
    nonisolated(nonsending) func callAsFunction(_ request: ClientRequest) async throws -> ClientResponse {
        switch self {
        case .chain(let chain, let index, let steps, let lock):
            try await chain.send(request, from: index, in: steps, within: lock)
        case .closure(let next):
            try await next(request)
        }
    }
}

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
        // The step never keeps `next` beyond its call.
        try await withoutActuallyEscaping(next) { next in try await intercept(request, inline: .closure(next)) }
    }
}
