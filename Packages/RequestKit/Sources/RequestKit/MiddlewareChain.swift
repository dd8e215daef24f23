/// Runs a request through the configured middleware, outermost first, and finally through the transport.
struct MiddlewareChain: Sendable {
    private let middleware: [any Middleware]
    private let transport: any Transport

    init(middleware: [any Middleware], transport: any Transport) {
        self.middleware = middleware
        self.transport = transport
    }

    /// Sends `request` through the client's middleware, then `innermost` (per-request decorators), then the
    /// transport.
    func send(_ request: ClientRequest, innermost: [any Middleware] = []) async throws -> ClientResponse {
        if innermost.isEmpty {
            return try await send(request, from: 0, in: middleware)
        }
        return try await send(request, from: 0, in: middleware + innermost)
    }

    private func send(
        _ request: ClientRequest,
        from index: Int,
        in steps: [any Middleware]
    ) async throws
        -> ClientResponse
    {
        guard index < steps.count else {
            return try await transport.send(request)
        }
        return try await steps[index].intercept(request) { next in
            try await self.send(next, from: index + 1, in: steps)
        }
    }
}
