/// Sends one request and returns the response head with a streamed body.
///
/// A transport is the only part of RequestKit that talks to the network. `AsyncHTTPClientTransport` in
/// `RequestKitAsyncHTTPClient` is the real one; `MockTransport` in `RequestKitTesting` answers from routes and
/// fixtures. Implementations stop the transfer when the calling task is cancelled, and throw
/// ``RequestKitError`` values with the codes ``RequestKitError/Code/transportFailed``,
/// ``RequestKitError/Code/timedOut`` or ``RequestKitError/Code/cancelled``.
public protocol Transport: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    func send(_ request: ClientRequest) async throws -> ClientResponse
}
