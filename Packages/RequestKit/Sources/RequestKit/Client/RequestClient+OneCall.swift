public import HTTPTypes

extension RequestClient {
    /// Sends a request and decodes its body by media type.
    ///
    /// Parameters go into the query for `GET`, `HEAD` and `DELETE`, and into the body for `POST`, `PUT` and `PATCH`
    /// (JSON unless `encoding` says form).
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:]
    ) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await perform(
            Self.describe(method, path, parameters, encoding, headerFields),
            decoding: .content
        )
    }

    /// Sends a request and decodes its JSON body into a model or an array of models.
    public func request<Model: Decodable & Sendable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:],
        as type: Model.Type
    ) async throws(RequestKitError) -> DecodedResponse<Model> {
        try await perform(
            Self.describe(method, path, parameters, encoding, headerFields),
            decoding: .model(type)
        )
    }

    /// `GET` with query parameters, decoded by media type.
    public func get(
        _ path: String,
        parameters: RequestParameters = [:]
    ) async throws(RequestKitError) -> DecodedResponse<
        ResponseContent
    > {
        try await request(.get, path, parameters: parameters)
    }

    /// `GET` with query parameters, decoded into a model.
    public func get<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        as type: Model.Type
    ) async throws(RequestKitError) -> Model {
        try await request(.get, path, parameters: parameters, as: type).value
    }

    /// `POST` with body parameters, decoded by media type.
    public func post(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json
    ) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await request(.post, path, parameters: parameters, encoding: encoding)
    }

    /// `POST` with body parameters, decoded into a model.
    public func post<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type
    ) async throws(RequestKitError) -> Model {
        try await request(.post, path, parameters: parameters, encoding: encoding, as: type).value
    }

    /// `PUT` with body parameters, decoded by media type.
    public func put(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json
    ) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await request(.put, path, parameters: parameters, encoding: encoding)
    }

    /// `PUT` with body parameters, decoded into a model.
    public func put<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type
    ) async throws(RequestKitError) -> Model {
        try await request(.put, path, parameters: parameters, encoding: encoding, as: type).value
    }

    /// `PATCH` with body parameters, decoded by media type.
    public func patch(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json
    ) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await request(.patch, path, parameters: parameters, encoding: encoding)
    }

    /// `PATCH` with body parameters, decoded into a model.
    public func patch<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        as type: Model.Type
    ) async throws(RequestKitError) -> Model {
        try await request(.patch, path, parameters: parameters, encoding: encoding, as: type).value
    }

    /// `DELETE` with query parameters, decoded by media type.
    public func delete(
        _ path: String,
        parameters: RequestParameters = [:]
    ) async throws(RequestKitError)
        -> DecodedResponse<ResponseContent>
    {
        try await request(.delete, path, parameters: parameters)
    }

    /// `HEAD` with query parameters: the status and header fields, with ``ResponseContent/empty`` as the value.
    public func head(
        _ path: String,
        parameters: RequestParameters = [:]
    ) async throws(RequestKitError)
        -> DecodedResponse<ResponseContent>
    {
        try await request(.head, path, parameters: parameters)
    }

    static func describe(
        _ method: HTTPRequest.Method,
        _ path: String,
        _ parameters: RequestParameters,
        _ encoding: BodyEncoding,
        _ headerFields: HTTPFields
    ) -> RequestDescriptor {
        var descriptor = RequestDescriptor(method: method, path: path)
        descriptor.apply(parameters, encoding: encoding)
        descriptor.headerFields.append(contentsOf: headerFields)
        return descriptor
    }
}
