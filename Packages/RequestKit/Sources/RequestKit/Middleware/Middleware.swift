/// A step of the ordered middleware chain between the client and the transport.
///
/// Middleware sees every request just before it is sent and every response head as it comes back. It can change the
/// request, answer without calling `next`, call `next` more than once (a retry: bodies are replayable), keep `next`
/// for work after it has answered (through ``MiddlewareNext/backgroundWork``), or throw. The chain runs in the order
/// the middleware was configured: the first one is the outermost.
///
/// RequestKit's own steps (duplicate requests, the cache, retries, authentication, cookies, decorators) implement
/// this protocol too, and the chain calls theirs and yours the same way. See <doc:WritingMiddleware>.
///
/// ```swift
/// struct RequestTagging: Middleware {
///     func intercept(_ request: ClientRequest, next: MiddlewareNext) async throws -> ClientResponse {
///         var tagged = request
///         tagged.headerFields[HTTPField.Name("X-Client")!] = "fleet"
///         return try await next(tagged)
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    /// Handles `request`, calling `next` to pass it on towards the transport.
    ///
    /// The chain calls each step on the caller's executor (`nonisolated(nonsending)`), and `next` runs on the
    /// executor it is called from, so a step costs no hop to another executor on the way in and none on the way back.
    /// A plain `async` method satisfies the requirement too; it then runs on the global concurrent executor, as any
    /// nonisolated `async` function does, which costs a hop there and back per request.
    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse
}
