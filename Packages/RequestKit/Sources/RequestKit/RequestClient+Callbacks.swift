public import Dispatch
public import HTTPTypes

extension RequestClient {
    /// Starts a request and calls `success` or `failure` on `completionQueue`, returning a token to cancel it.
    ///
    /// The callback style of the one-call API. The body is decoded by media type.
    @discardableResult
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: Parameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(method, path, parameters, encoding, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .content)
        }
    }

    /// Starts a request whose JSON body is decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func request<Model: Decodable & Sendable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: Parameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<Model>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(method, path, parameters, encoding, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type))
        }
    }

    /// `GET` with callbacks on `completionQueue`.
    @discardableResult
    public func get(
        _ path: String,
        parameters: Parameters = [:],
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .get,
            path,
            parameters: parameters,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// `POST` with callbacks on `completionQueue`.
    @discardableResult
    public func post(
        _ path: String,
        parameters: Parameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .post,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// Runs `work` in a task tied to a token and delivers its outcome on `completionQueue`.
    func start<Value: Sendable>(
        completionQueue: DispatchQueue,
        success: @escaping @Sendable (Value) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void,
        work: @escaping @Sendable () async throws -> Value
    ) -> CancellableToken {
        let token = CancellableToken()
        let task = Task {
            do {
                let value = try await work()
                token.markFinished()
                completionQueue.async { success(value) }
            } catch {
                let error = RequestKitError.wrapping(error, operation: "callback request", url: nil)
                token.markFinished()
                completionQueue.async { failure(error) }
            }
        }
        token.attach(task)
        return token
    }
}
