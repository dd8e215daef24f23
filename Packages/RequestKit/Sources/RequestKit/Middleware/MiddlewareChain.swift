import Foundation
import HTTPTypes

/// Runs a request through the configured middleware, outermost first, and finally through the transport.
///
/// One list of steps, each called through the public ``Middleware`` contract with a ``MiddlewareNext`` naming this
/// chain and the position after it. The last step before the transport holds the host lock: whatever a middleware or
/// decorator did to the request, it goes out only to the origin of the environment it was prepared in. The step after
/// the transport removes the response's content codings.
///
/// It is a class so that a step's `next`, which holds the chain, counts one reference.
final class MiddlewareChain: Sendable {
    private let middleware: [any Middleware]
    private let transport: any Transport
    private let decompression: ResponseDecompression
    /// Told of every replay of a request the server did not process.
    private let observers: [any RequestObserver]
    /// Where steps start work that outlives a request; the client shuts it down.
    let backgroundWork: BackgroundWork

    init(
        middleware: [any Middleware],
        transport: any Transport,
        decompression: ResponseDecompression,
        observers: [any RequestObserver] = [],
        backgroundWork: BackgroundWork = BackgroundWork()
    ) {
        self.middleware = middleware
        self.observers = observers
        self.transport = transport
        self.decompression = decompression
        self.backgroundWork = backgroundWork
    }

    /// Sends `request` through the client's middleware from step `first` on (the client skips the leading steps
    /// that have nothing to do for the request), then `innermost` (per-request decorators), then the transport,
    /// refusing to send to any origin but `environment`'s.
    nonisolated(nonsending) func send(
        _ request: ClientRequest,
        from first: Int = 0,
        innermost: [any Middleware] = [],
        within environment: ServiceEnvironment
    ) async throws -> ClientResponse {
        // Each value copied here that other tasks also hold (the environment, the URL's text, a step) has its
        // reference count changed on every request, from every core: with requests on two cores at once, those
        // counts cost more than the rest of the client's work. A request no step would touch goes straight to the
        // transport: nothing can have moved it off the URL it was prepared with, which every caller checked.
        if innermost.isEmpty, first >= middleware.count {
            let response = try await deliver(request)
            return decompression.decode(response, operation: request.operation)
        }
        let lock = HostLock(environment: environment, resolved: request.url.absoluteString)
        if innermost.isEmpty {
            return try await send(request, from: first, in: middleware, within: lock)
        }
        return try await send(request, from: first, in: middleware + innermost, within: lock)
    }

    /// The origin a request must stay on, and the URL it started with: a URL no middleware changed needs no check
    /// (comparing the text is a pointer comparison while it is the same string).
    struct HostLock: Sendable {
        let environment: ServiceEnvironment
        let resolved: String

        func admits(_ url: URL) -> Bool {
            url.absoluteString == resolved || environment.contains(url)
        }
    }

    /// Sends `request` through `steps` from `index` on, then the transport.
    nonisolated(nonsending) func send(
        _ request: ClientRequest,
        from index: Int,
        in steps: [any Middleware],
        within lock: HostLock
    ) async throws
        -> ClientResponse
    {
        guard index < steps.count else {
            guard lock.admits(request.url) else {
                var error = RequestKitError.invalidPath(
                    request.url.absoluteString,
                    reason: "a middleware sent the request away from \(lock.environment.name); nothing was sent"
                )
                error.operation = request.operation
                error.url = request.url
                throw error
            }
            let response = try await deliver(request)
            return decompression.decode(response, operation: request.operation)
        }
        return try await steps[index].intercept(
            request,
            next: MiddlewareNext(chain: self, index: index + 1, steps: steps, lock: lock)
        )
    }
}

extension MiddlewareChain {
    /// The most times one attempt of a request the server did not process is sent again.
    static let maximumReplays = 4

    /// Sends `request` to the transport. A request the server did not process goes out again at once, up to
    /// ``maximumReplays`` times, whether or not a retry policy is configured (the server never acted on it, so
    /// nothing is repeated): a stream the server refused, for any method; a connection that closed before any byte of
    /// the response, for a method that is idempotent (RFC 9110 section 9.2.2) or a request with an
    /// `Idempotency-Key`. The transport's pool hands the next sending another connection, since the failed one is
    /// closing. Each replay is told to the observers.
    nonisolated(nonsending) func deliver(_ request: ClientRequest) async throws -> ClientResponse {
        do {
            return try await transport.send(request)
        } catch let error as RequestKitError where Self.mayReplay(request, after: error) {
            var failure = error
            for replay in 1...Self.maximumReplays {
                if !observers.isEmpty {
                    let event = RequestReplayed(
                        id: request.observationID,
                        operation: request.operation,
                        method: request.method,
                        url: Redaction.redact(request.url),
                        attempt: request.attempt,
                        replay: replay,
                        error: failure
                    )
                    for observer in observers { observer.requestReplayed(event) }
                }
                do {
                    return try await transport.send(request)
                } catch let error as RequestKitError where Self.mayReplay(request, after: error) {
                    failure = error
                }
            }
            throw failure
        }
    }

    /// Whether `error` shows the server did not act on `request`, and the request may go out again as it is.
    static func mayReplay(_ request: ClientRequest, after error: RequestKitError) -> Bool {
        guard error.isConnectionLost, !Task.isCancelled, request.body?.isReplayable ?? true else { return false }
        if error.wasNotProcessed { return true }
        switch request.method {
        case .get, .head, .options, .trace, .put, .delete:
            return true
        default:
            return RetryMiddleware.idempotencyKey.map { request.headerFields[$0] != nil } ?? false
        }
    }
}
