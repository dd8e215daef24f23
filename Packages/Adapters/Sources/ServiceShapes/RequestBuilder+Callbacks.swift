public import Dispatch
public import RequestKit

// The callback forms of the builder's `submit` calls: the same calls, then the completion queue and the
// completion, returning a token that cancels the request.
extension RequestBuilder {
    /// Sends the request, decoding the body by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func submit(
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        let builder = self
        return Self.start(completionQueue, completion) { () async throws(RequestKitError) in
            try await builder.submit()
        }
    }

    /// Sends the request, decoding its JSON body into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func submit<Model: Decodable & Sendable>(
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<Model>, RequestKitError>) -> Void
    ) -> CancellableToken {
        let builder = self
        return Self.start(completionQueue, completion) { () async throws(RequestKitError) in
            try await builder.submit(as: type)
        }
    }

    /// Sends the request, stating whether it is an upload; `completion` runs once on `completionQueue`.
    @discardableResult
    public func submitAsUpload(
        _ upload: Bool,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        let builder = self
        return Self.start(completionQueue, completion) { () async throws(RequestKitError) in
            try await builder.submitAsUpload(upload)
        }
    }

    private static func start<Value: Sendable>(
        _ completionQueue: DispatchQueue,
        _ completion: @escaping @Sendable (Result<Value, RequestKitError>) -> Void,
        work: @escaping @Sendable () async throws(RequestKitError) -> Value
    ) -> CancellableToken {
        CallbackRunner.start(
            completionQueue: completionQueue,
            cancellation: {
                RequestKitError(
                    .cancelled,
                    subject: "built request",
                    reason: "the request was cancelled",
                    operation: "callback request",
                    underlying: CancellationError()
                )
            },
            completion: completion,
            work: work
        )
    }
}
