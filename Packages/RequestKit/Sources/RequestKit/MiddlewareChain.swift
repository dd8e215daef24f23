/// Runs a request through the configured middleware, outermost first, and finally through the transport.
struct MiddlewareChain: Sendable {
    private let middleware: [any Middleware]
    private let transport: any Transport

    init(middleware: [any Middleware], transport: any Transport) {
        self.middleware = middleware
        self.transport = transport
    }

    func send(_ request: ClientRequest) async throws -> ClientResponse {
        try await send(request, from: 0)
    }

    private func send(_ request: ClientRequest, from index: Int) async throws -> ClientResponse {
        guard index < middleware.count else {
            return try await transport.send(request)
        }
        return try await middleware[index].intercept(request) { next in
            try await self.send(next, from: index + 1)
        }
    }
}
