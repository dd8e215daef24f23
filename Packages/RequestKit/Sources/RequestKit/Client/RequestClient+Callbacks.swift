public import Dispatch
public import HTTPTypes

// The callback forms of the one-call API: one for each async call, with the same parameters, then the completion
// queue and the callbacks. Each returns a token that cancels the request.
extension RequestClient {
    /// Starts a request and calls `success` or `failure` on `completionQueue`, returning a token to cancel it.
    ///
    /// The callback style of ``request(_:_:parameters:encoding:headerFields:)``. The body is decoded by media type.
    @discardableResult
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:],
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(method, path, parameters, encoding, headerFields)
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .content)
        }
    }

    /// Starts a request whose JSON body is decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func request<Model: Decodable & Sendable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:],
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<Model>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(method, path, parameters, encoding, headerFields)
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type))
        }
    }

    /// `GET` with query parameters, decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func get(
        _ path: String,
        parameters: RequestParameters = [:],
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

    /// `GET` with query parameters, decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func get<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (Model) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(.get, path, parameters, .json, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type)).value
        }
    }

    /// `POST` with body parameters, decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func post(
        _ path: String,
        parameters: RequestParameters = [:],
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

    /// `POST` with body parameters, decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func post<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (Model) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(.post, path, parameters, encoding, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type)).value
        }
    }

    /// `PUT` with body parameters, decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func put(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .put,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// `PUT` with body parameters, decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func put<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (Model) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(.put, path, parameters, encoding, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type)).value
        }
    }

    /// `PATCH` with body parameters, decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func patch(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .patch,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// `PATCH` with body parameters, decoded into a model, with callbacks on `completionQueue`.
    @discardableResult
    public func patch<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (Model) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        let descriptor = Self.describe(.patch, path, parameters, encoding, [:])
        return start(completionQueue: completionQueue, success: success, failure: failure) {
            try await perform(descriptor, decoding: .model(type)).value
        }
    }

    /// `DELETE` with query parameters, decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func delete(
        _ path: String,
        parameters: RequestParameters = [:],
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .delete,
            path,
            parameters: parameters,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// `HEAD` with query parameters (the value is ``ResponseContent/empty``), decoded by media type, with callbacks on `completionQueue`.
    @discardableResult
    public func head(
        _ path: String,
        parameters: RequestParameters = [:],
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<ResponseContent>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        request(
            .head,
            path,
            parameters: parameters,
            completionQueue: completionQueue,
            success: success,
            failure: failure
        )
    }

    /// Sends an endpoint's request with callbacks on `completionQueue`; `success` gets the decoded value with
    /// the status and header fields.
    @discardableResult
    public func response<Response: Sendable>(
        for endpoint: Endpoint<Response>,
        completionQueue: DispatchQueue = .global(),
        success: @escaping @Sendable (DecodedResponse<Response>) -> Void,
        failure: @escaping @Sendable (RequestKitError) -> Void
    ) -> CancellableToken {
        start(completionQueue: completionQueue, success: success, failure: failure) {
            try await response(for: endpoint)
        }
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
