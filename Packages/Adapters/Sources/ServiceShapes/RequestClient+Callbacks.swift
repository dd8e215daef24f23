public import Dispatch
public import Foundation
public import HTTPTypes
public import RequestKit

// The callback forms of RequestKit's one-call API: one for each async call, with the same parameters, then the
// completion queue and the completion. Each returns a token that cancels the request (see `CancellableToken`).
// The completion queue defaults to a global queue, which always runs: a server or a command-line tool may never
// run the main queue, and a completion sent there would wait forever.
extension RequestClient {
    /// Starts a request and calls `completion` once on `completionQueue`, returning a token to cancel it.
    ///
    /// The callback form of ``RequestKit/RequestClient/request(_:_:parameters:encoding:headerFields:)``: the body is
    /// decoded by media type.
    @discardableResult
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:],
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await request(method, path, parameters: parameters, encoding: encoding, headerFields: headerFields)
        }
    }

    /// Starts a request whose JSON body is decoded into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func request<Model: Decodable & Sendable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:],
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<Model>, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await request(
                method,
                path,
                parameters: parameters,
                encoding: encoding,
                headerFields: headerFields,
                as: type
            )
        }
    }

    /// `GET` with query parameters, decoded by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func get(
        _ path: String,
        parameters: RequestParameters = [:],
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(.get, path, parameters: parameters, completionQueue: completionQueue, completion: completion)
    }

    /// `GET` with query parameters, decoded into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func get<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Model, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await get(path, parameters: parameters, as: type)
        }
    }

    /// `POST` with body parameters, decoded by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func post(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(
            .post,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            completion: completion
        )
    }

    /// `POST` with body parameters, decoded into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func post<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Model, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await post(path, parameters: parameters, encoding: encoding, as: type)
        }
    }

    /// `PUT` with body parameters, decoded by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func put(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(
            .put,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            completion: completion
        )
    }

    /// `PUT` with body parameters, decoded into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func put<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Model, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await put(path, parameters: parameters, encoding: encoding, as: type)
        }
    }

    /// `PATCH` with body parameters, decoded by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func patch(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(
            .patch,
            path,
            parameters: parameters,
            encoding: encoding,
            completionQueue: completionQueue,
            completion: completion
        )
    }

    /// `PATCH` with body parameters, decoded into a model; `completion` runs once on `completionQueue`.
    @discardableResult
    public func patch<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Model, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await patch(path, parameters: parameters, encoding: encoding, as: type)
        }
    }

    /// `DELETE` with query parameters, decoded by media type; `completion` runs once on `completionQueue`.
    @discardableResult
    public func delete(
        _ path: String,
        parameters: RequestParameters = [:],
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(.delete, path, parameters: parameters, completionQueue: completionQueue, completion: completion)
    }

    /// `HEAD` with query parameters (the value is `ResponseContent.empty`); `completion` runs once on
    /// `completionQueue`.
    @discardableResult
    public func head(
        _ path: String,
        parameters: RequestParameters = [:],
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<ResponseContent>, RequestKitError>) -> Void
    ) -> CancellableToken {
        request(.head, path, parameters: parameters, completionQueue: completionQueue, completion: completion)
    }

    /// Sends an endpoint's request; `completion` gets the decoded value, once, on `completionQueue`.
    @discardableResult
    public func send<Response: Sendable>(
        _ endpoint: Endpoint<Response>,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<Response, RequestKitError>) -> Void
    ) -> CancellableToken {
        start("endpoint", completionQueue, completion) { () async throws(RequestKitError) in
            try await send(endpoint)
        }
    }

    /// Sends an endpoint's request; `completion` gets the decoded value with the status and header fields, once,
    /// on `completionQueue`.
    @discardableResult
    public func response<Response: Sendable>(
        for endpoint: Endpoint<Response>,
        completionQueue: DispatchQueue = .global(),
        completion: @escaping @Sendable (Result<DecodedResponse<Response>, RequestKitError>) -> Void
    ) -> CancellableToken {
        start("endpoint", completionQueue, completion) { () async throws(RequestKitError) in
            try await response(for: endpoint)
        }
    }

    /// Downloads `path` into `destination`; `progress` is called as chunks are written (on the task that writes
    /// them, not on `completionQueue`), and `completion` runs once on `completionQueue`.
    ///
    /// The callback form of ``RequestKit/RequestClient/download(_:parameters:to:resume:progress:)``; a cancelled
    /// download leaves its partial file for a later `resume: true`.
    @discardableResult
    public func download(
        _ path: String,
        parameters: RequestParameters = [:],
        saveAs destination: URL,
        resume: Bool = false,
        completionQueue: DispatchQueue = .global(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadResult, RequestKitError>) -> Void
    ) -> CancellableToken {
        start(path, completionQueue, completion) { () async throws(RequestKitError) in
            try await download(path, parameters: parameters, to: destination, resume: resume, progress: progress)
        }
    }

    /// Runs `work` in a task tied to a token; a cancelled token delivers `RequestKitError.Code.cancelled`.
    func start<Value: Sendable>(
        _ subject: String,
        _ completionQueue: DispatchQueue,
        _ completion: @escaping @Sendable (Result<Value, RequestKitError>) -> Void,
        work: @escaping @Sendable () async throws(RequestKitError) -> Value
    ) -> CancellableToken {
        CallbackRunner.start(
            completionQueue: completionQueue,
            cancellation: {
                RequestKitError(
                    .cancelled,
                    subject: subject,
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
