import Foundation
import HTTPTypes
import Tracing

/// Runs a request through the configured middleware, outermost first, and finally through the transport.
///
/// One immutable list of steps, fixed when the client is made, each called through the public ``Middleware``
/// contract with a ``MiddlewareNext`` naming this chain and the position after it: reading a step needs no
/// synchronisation and copies no list. Before the transport the chain holds the host lock: a request whose URL a
/// middleware or decorator set goes out only if the URL is on the origin of the client's current environment (one
/// whose URL the client resolved and nothing set since needs no check). The step after the transport removes the
/// response's content codings.
///
/// It is a class so that a step's `next`, which holds the chain, counts one reference. A chain made for a step
/// called on its own (``MiddlewareNext/init(backgroundWork:_:)``) has no steps and ends in a closure instead.
@usableFromInline
final class MiddlewareChain: Sendable {
    /// A closure that answers requests on the caller's executor.
    typealias Send = nonisolated(nonsending) @Sendable (ClientRequest) async throws -> ClientResponse

    @usableFromInline let steps: [any Middleware]
    /// Where a request goes after the last step. Kept as plain fields, not an enum, so that reaching it copies
    /// nothing: the transport, with the replays of a request the server did not process and the removal of content
    /// codings (`observers` are told of every replay), or for a chain that ends in a closure, that closure as the
    /// transport, which answers every request as it is.
    private let transport: any Transport
    private let decompression: ResponseDecompression
    private let observers: [any RequestObserver]
    /// Records a span for each attempt that reaches the transport, or `nil`.
    private let tracer: (any Tracer)?
    private let endsInClosure: Bool
    /// Where steps start work that outlives a request; the client shuts it down.
    let backgroundWork: BackgroundWork
    /// The client's environments, whose current origin a request a step moved must stay on; `nil` for a chain that
    /// ends in a closure, which sends nowhere by itself.
    private let environment: (any EnvironmentProvider)?

    init(
        middleware: [any Middleware],
        transport: any Transport,
        decompression: ResponseDecompression,
        observers: [any RequestObserver] = [],
        tracer: (any Tracer)? = nil,
        environment: (any EnvironmentProvider)?,
        backgroundWork: BackgroundWork = BackgroundWork()
    ) {
        self.environment = environment
        self.steps = middleware
        self.transport = transport
        self.decompression = decompression
        self.observers = observers
        self.tracer = tracer
        self.endsInClosure = false
        self.backgroundWork = backgroundWork
    }

    /// A chain of no steps that hands each request to `send`.
    init(
        send: @escaping Send,
        backgroundWork: BackgroundWork
    ) {
        self.environment = nil
        self.steps = []
        self.transport = ClosureTransport(send: send)
        self.decompression = ResponseDecompression.disabled
        self.observers = []
        self.tracer = nil
        self.endsInClosure = true
        self.backgroundWork = backgroundWork
    }

    /// `chain`'s steps followed by `innermost`, with its end and its background work.
    private init(_ chain: MiddlewareChain, appending innermost: [any Middleware]) {
        self.environment = chain.environment
        self.steps = chain.steps + innermost
        self.transport = chain.transport
        self.decompression = chain.decompression
        self.observers = chain.observers
        self.tracer = chain.tracer
        self.endsInClosure = chain.endsInClosure
        self.backgroundWork = chain.backgroundWork
    }

    /// Sends `request` through the client's middleware from step `first` on (the client skips the leading steps
    /// that have nothing to do for the request), then `innermost` (per-request decorators), then the transport.
    nonisolated(nonsending) func send(
        _ request: ClientRequest,
        from first: Int = 0,
        innermost: [any Middleware] = []
    ) async throws -> ClientResponse {
        guard innermost.isEmpty else {
            // Per-request decorators make a chain of their own for the request, so that every `next` names one list.
            return try await MiddlewareChain(self, appending: innermost).send(request, from: first)
        }
        // The chain itself, not a copy of the reference to it, goes into `next`: a copy would count references.
        return try await send(request, from: first)
    }

    /// Sends `request` through the steps from `index` on, then to the end. It is the body of every
    /// ``MiddlewareNext``, inlined into the step that calls it: the next step is called directly, with no frame
    /// between.
    @inlinable @inline(__always)
    nonisolated(nonsending) func send(_ request: ClientRequest, from index: Int) async throws -> ClientResponse {
        if index < steps.count {
            return try await steps[index].intercept(request, next: MiddlewareNext(chain: self, index: index + 1))
        }
        if !request.originChecked { try checkOrigin(of: request) }
        return try await finish(request)
    }

    /// Refuses `request`, whose URL a step set, unless the URL is on the origin of the client's current environment.
    @usableFromInline
    func checkOrigin(of request: ClientRequest) throws(RequestKitError) {
        guard let provider = environment else { return }
        let environment = provider.currentEnvironment
        try environment.requireOrigin(
            of: request,
            reason: "a middleware sent the request away from \(environment.name); nothing was sent"
        )
    }

    /// Hands `request`, past every step, to the chain's end.
    @usableFromInline nonisolated(nonsending) func finish(_ request: ClientRequest) async throws -> ClientResponse {
        if endsInClosure { return try await transport.send(request) }
        if let tracer { return try await finishTraced(request, tracer: tracer) }
        let response: ClientResponse
        do {
            response = try await transport.send(request)
        } catch let error as RequestKitError where Self.mayReplay(request, after: error) {
            response = try await replay(request, after: error, span: nil)
        }
        return decompression.decode(response, operation: request.operation)
    }

    /// ``finish(_:)`` in a span of its own, kind `client`, whose context goes out in the request's header fields.
    /// The span ends when the response head arrives; the request's span covers the body.
    @inline(never)
    private nonisolated(nonsending) func finishTraced(
        _ request: ClientRequest,
        tracer: any Tracer
    ) async throws -> ClientResponse {
        let span = tracer.startSpan(
            request.method.rawValue,
            context: ServiceContext.current ?? .topLevel,
            ofKind: .client
        )
        RequestTracing.setRequestAttributes(span, request)
        span.updateAttributes { attributes in
            attributes[RequestTracing.AttributeKey.attempt] = request.attempt
            if request.attempt > 1 {
                attributes[RequestTracing.AttributeKey.resendCount] = request.attempt - 1
            }
            if let retry = RetryCause.current {
                attributes[RequestTracing.AttributeKey.retryReason] = retry.reason
                attributes[RequestTracing.AttributeKey.retryDelay] = retry.delay.timeInterval
            }
            if let length = request.body?.length {
                attributes[RequestTracing.AttributeKey.requestBodySize] = length
            }
        }
        var sending = request
        tracer.inject(span.context, into: &sending.headerFields, using: RequestTracing.HeaderInjector())
        do {
            let response = try await RequestTracing.$attemptSpan.withValue(span) {
                try await ServiceContext.$current.withValue(span.context) {
                    let response: ClientResponse
                    do {
                        response = try await transport.send(sending)
                    } catch let error as RequestKitError where Self.mayReplay(sending, after: error) {
                        response = try await replay(sending, after: error, span: span)
                    }
                    return response
                }
            }
            RequestTracing.setResponse(span, response)
            span.end()
            return decompression.decode(response, operation: request.operation)
        } catch {
            RequestTracing.setFailure(span, error)
            span.end()
            throw error
        }
    }
}

/// A closure as the end of a chain made for a step called on its own.
private struct ClosureTransport: Transport {
    let send: MiddlewareChain.Send

    nonisolated(nonsending) func send(_ request: ClientRequest) async throws -> ClientResponse {
        try await send(request)
    }
}

extension MiddlewareChain {
    /// The most times one attempt of a request the server did not process is sent again.
    static let maximumReplays = 4

    /// Sends `request`, which failed with `error`, to the transport again: a request the server did not process goes
    /// out again at once, up to ``maximumReplays`` times, whether or not a retry policy is configured (the server
    /// never acted on it, so nothing is repeated): a stream the server refused, for any method; a connection that
    /// closed before any byte of the response, for a method that is idempotent (RFC 9110 section 9.2.2) or a request
    /// with an `Idempotency-Key`. The transport's pool hands the next sending another connection, since the failed
    /// one is closing. Each replay is told to the observers.
    private nonisolated(nonsending) func replay(
        _ request: ClientRequest,
        after error: RequestKitError,
        span: (any Span)?
    ) async throws -> ClientResponse {
        var failure = error
        for replay in 1...Self.maximumReplays {
            span?.addEvent(
                SpanEvent(
                    name: RequestTracing.replayEvent,
                    attributes: [
                        RequestTracing.AttributeKey.replay: .int64(Int64(replay)),
                        RequestTracing.AttributeKey.errorType: .string(failure.code.name),
                    ]
                )
            )
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
