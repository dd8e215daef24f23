import Foundation

/// Runs a request through the configured middleware, outermost first, and finally through the transport.
///
/// The last step before the transport holds the host lock: whatever a middleware or decorator did to the request,
/// it goes out only to the origin of the environment it was prepared in. The step after the transport removes the
/// response's content codings.
struct MiddlewareChain: Sendable {
    private let middleware: [any Middleware]
    /// The outermost step when it needs an escaping `next` (the duplicate-request policy), found once here.
    private let outermost: (any EscapingMiddleware)?
    private let transport: any Transport
    private let decompression: ResponseDecompression

    init(middleware: [any Middleware], transport: any Transport, decompression: ResponseDecompression) {
        self.middleware = middleware
        self.outermost = middleware.first as? any EscapingMiddleware
        self.transport = transport
        self.decompression = decompression
    }

    /// Sends `request` through the client's middleware, then `innermost` (per-request decorators), then the
    /// transport, refusing to send to any origin but `environment`'s.
    func send(
        _ request: ClientRequest,
        innermost: [any Middleware] = [],
        within environment: ServiceEnvironment
    ) async throws -> ClientResponse {
        if innermost.isEmpty {
            return try await send(request, from: 0, in: middleware, within: environment)
        }
        return try await send(request, from: 0, in: middleware + innermost, within: environment)
    }

    private func send(
        _ request: ClientRequest,
        from index: Int,
        in steps: [any Middleware],
        within environment: ServiceEnvironment
    ) async throws
        -> ClientResponse
    {
        guard index < steps.count else {
            guard environment.contains(request.url) else {
                var error = RequestKitError.invalidPath(
                    request.url.absoluteString,
                    reason: "a middleware sent the request away from \(environment.name); nothing was sent"
                )
                error.operation = request.operation
                error.url = request.url
                throw error
            }
            let response = try await transport.send(request)
            return decompression.decode(response, operation: request.operation)
        }
        if index == 0, let outermost {
            return try await outermost.intercept(request) { [self] next in
                try await self.send(next, from: 1, in: steps, within: environment)
            }
        }
        return try await steps[index].intercept(request) { next in
            try await self.send(next, from: index + 1, in: steps, within: environment)
        }
    }
}
