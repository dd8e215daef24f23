/// The rest of the middleware chain after a step: call it to send a request on towards the transport.
///
/// It is a small value naming the chain and the position after the step, so calling it goes straight to the next
/// step on the caller's executor, with no closure to allocate and no hop. It may be called more than once (each
/// call sends the request through everything below the step again) and kept beyond the step's call, for work that
/// outlives the request: start such work with ``backgroundWork``, which the client cancels when it shuts down.
///
/// The chain makes the `next` of its steps. To call a step on its own (in a test, or from a step of your own that
/// wraps it), make one from a closure with ``init(backgroundWork:_:)``.
public struct MiddlewareNext: Sendable {
    /// The chain whose steps from ``index`` on, then its end, answer the request.
    @usableFromInline let chain: MiddlewareChain
    /// The position of the step after the one this is handed to.
    @usableFromInline let index: Int

    /// The rest of `chain` from step `index` on.
    @usableFromInline
    init(chain: MiddlewareChain, index: Int) {
        self.chain = chain
        self.index = index
    }

    /// A `next` that hands each request to `send`: for calling a step on its own.
    ///
    /// - Parameters:
    ///   - backgroundWork: what the step gets as ``backgroundWork``; by default a facility of its own, which
    ///     nothing shuts down.
    ///   - send: answers each request the step passes on; it runs on the executor it is called from.
    public init(
        backgroundWork: BackgroundWork = BackgroundWork(),
        _ send: nonisolated(nonsending) @escaping @Sendable (ClientRequest) async throws -> ClientResponse
    ) {
        self.init(chain: MiddlewareChain(send: send, backgroundWork: backgroundWork), index: 0)
    }

    /// Sends `request` through the rest of the chain and returns the response head, with its body unread.
    ///
    /// It runs on the caller's executor. Errors are those of the steps below and of the transport, mostly
    /// ``RequestKitError`` values.
    @inlinable @inline(__always)
    public nonisolated(nonsending) func callAsFunction(_ request: ClientRequest) async throws -> ClientResponse {
        try await chain.send(request, from: index)
    }

    /// Where a step starts work that outlives the request it is handling, such as the cache's revalidation behind
    /// a `stale-while-revalidate` answer. It belongs to the client: ``RequestClient/shutdown()`` cancels what is
    /// still running and refuses new work.
    public var backgroundWork: BackgroundWork { chain.backgroundWork }
}
