/// A step of the ordered middleware chain between the client and the transport.
///
/// Middleware sees every request just before it is sent and every response head as it comes back. It can change the
/// request, answer without calling `next`, call `next` more than once (a retry: bodies are replayable), or throw.
/// The chain runs in the order the middleware was configured: the first one is the outermost.
/// Authentication refresh, retries, caching and coalescing of duplicate requests plug in here.
public protocol Middleware: Sendable {
    /// Handles `request`, calling `next` to pass it on towards the transport.
    func intercept(
        _ request: ClientRequest,
        next: @Sendable (ClientRequest) async throws -> ClientResponse
    ) async throws -> ClientResponse
}
