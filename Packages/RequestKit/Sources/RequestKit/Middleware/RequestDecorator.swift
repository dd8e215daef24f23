import Foundation

/// A middleware that changes a request just before it is sent, or refuses to send it.
///
/// This is the hook for adding a fresh token or a signature. A decorator that throws stops the request before it
/// reaches the transport; an error that is not a ``RequestKitError`` is reported as ``RequestKitError/Code/refused``
/// with the thrown error as its underlying error.
///
/// ```swift
/// let auth = RequestDecorator { request in
///     guard let token = await tokens.current() else { throw NotSignedIn() }
///     request.headerFields[.authorization] = "Bearer \(token)"
/// }
/// ```
public struct RequestDecorator: Middleware {
    private let decorate: @Sendable (inout ClientRequest) async throws -> Void

    /// Creates a decorator from a closure that edits the request in place.
    public init(_ decorate: @escaping @Sendable (inout ClientRequest) async throws -> Void) {
        self.decorate = decorate
    }

    nonisolated(nonsending) public func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        var decorated = request
        do {
            try await decorate(&decorated)
        } catch {
            throw RequestKitError.refusing(request, because: error, reason: "a request decorator refused the request")
        }
        return try await next(decorated)
    }
}
