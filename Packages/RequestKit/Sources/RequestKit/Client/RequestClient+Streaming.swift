import Foundation
public import HTTPTypes

extension RequestClient {
    /// Sends a request and returns its response with the body unread, as a ``ResponseStream`` of chunks, lines,
    /// newline-delimited JSON values or server-sent events.
    ///
    /// The status and content type are validated before the stream is returned: a status other than 2xx throws
    /// ``RequestKitError/Code/unacceptableStatus`` (with the error body read, up to 1 MiB) and nothing is handed
    /// out. Parameters go where ``request(_:_:parameters:encoding:headerFields:)`` puts them. `Accept` defaults to
    /// `*/*`. An overall timeout (``Timeouts``) covers the request until the stream is returned; while it is read,
    /// the transport's read timeout catches a server that stalls.
    ///
    /// ```swift
    /// let stream = try await client.stream(.get, "vehicles/7/log")
    /// for try await line in stream.lines() { print(line) }
    /// ```
    public func stream(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: RequestParameters = [:],
        encoding: BodyEncoding = .json,
        headerFields: HTTPFields = [:]
    ) async throws(RequestKitError) -> ResponseStream {
        try await openStream(
            Self.describe(method, path, parameters, encoding, headerFields),
            accept: DefaultHeaderFields.any
        )
    }

    /// Sends an endpoint's request and returns its response with the body unread (see
    /// ``stream(_:_:parameters:encoding:headerFields:)``); the endpoint's validation applies, its decoding does not.
    public func stream<Response: Sendable>(
        _ endpoint: Endpoint<Response>
    ) async throws(RequestKitError) -> ResponseStream {
        try await openStream(endpoint.descriptor, accept: endpoint.decoding.accept)
    }

    /// `GET`s newline-delimited JSON (NDJSON) and decodes each line into `Model` as it arrives.
    ///
    /// `Accept` defaults to `application/x-ndjson, application/jsonl, application/json;q=0.9`.
    ///
    /// ```swift
    /// for try await vehicle in try await client.jsonLines("vehicles/feed", as: Vehicle.self) {
    ///     print(vehicle.plate)
    /// }
    /// ```
    public func jsonLines<Model: Decodable & Sendable>(
        _ path: String,
        parameters: RequestParameters = [:],
        headerFields: HTTPFields = [:],
        as type: Model.Type
    ) async throws(RequestKitError) -> JSONLines<Model> {
        let descriptor = Self.describe(.get, path, parameters, .json, headerFields)
        return try await openStream(descriptor, accept: DefaultHeaderFields.jsonLines).jsonLines(of: type)
    }

    /// Sends an endpoint whose response is newline-delimited JSON, one `Model` per line.
    public func jsonLines<Model: Decodable & Sendable>(
        _ endpoint: Endpoint<Model>
    ) async throws(RequestKitError) -> JSONLines<Model> {
        try await openStream(endpoint.descriptor, accept: DefaultHeaderFields.jsonLines).jsonLines(of: Model.self)
    }

    /// `GET`s a `text/event-stream` and returns its server-sent events as they arrive.
    ///
    /// `Accept` defaults to `text/event-stream`; `lastEventID` is sent as `Last-Event-ID` to resume a stream.
    ///
    /// ```swift
    /// for try await event in try await client.serverSentEvents("vehicles/events") {
    ///     print(event.type, event.data)
    /// }
    /// ```
    public func serverSentEvents(
        _ path: String,
        parameters: RequestParameters = [:],
        headerFields: HTTPFields = [:],
        lastEventID: String? = nil
    ) async throws(RequestKitError) -> ServerSentEvents {
        var descriptor = Self.describe(.get, path, parameters, .json, headerFields)
        if let lastEventID { descriptor.headerFields[Self.lastEventID] = lastEventID }
        return try await openStream(descriptor, accept: DefaultHeaderFields.eventStream).serverSentEvents()
    }

    /// Sends an endpoint whose response is a `text/event-stream` and returns its server-sent events.
    public func serverSentEvents<Response: Sendable>(
        _ endpoint: Endpoint<Response>,
        lastEventID: String? = nil
    ) async throws(RequestKitError) -> ServerSentEvents {
        var descriptor = endpoint.descriptor
        if let lastEventID { descriptor.headerFields[Self.lastEventID] = lastEventID }
        return try await openStream(descriptor, accept: DefaultHeaderFields.eventStream).serverSentEvents()
    }

    private static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// The most bytes of an error body read from a stream that failed validation.
    private static let streamErrorBodyLimit = 1024 * 1024

    /// Sends a request and validates the response head, returning the body unread.
    func openStream(_ descriptor: RequestDescriptor, accept: String?) async throws(RequestKitError) -> ResponseStream {
        let validation = descriptor.validation
        let makeJSONDecoder = configuration.makeJSONDecoder
        let errorBodyLimit = min(configuration.maximumBodySize, Self.streamErrorBodyLimit)
        return try await run(descriptor.expecting(accept)) { response in
            let status = response.status.code
            guard validation.accepts(status: status) else {
                var error = RequestKitError(
                    .unacceptableStatus,
                    subject: response.url.absoluteString,
                    reason: "the server answered \(status) \(response.status.reasonPhrase)",
                    status: status
                )
                if let decodeErrorBody = validation.errorBodyDecoder,
                    let data = try? await response.body.collect(upTo: errorBodyLimit), !data.isEmpty
                {
                    error.errorBody = decodeErrorBody(data)
                }
                throw error
            }
            let contentType = response.contentType
            if !validation.accepts(contentType: contentType) {
                throw RequestKitError(
                    .unacceptableContentType,
                    subject: contentType ?? "no content type",
                    reason: "the request does not accept this content type",
                    status: status
                )
            }
            let stream = ResponseStream(
                response: response,
                operation: descriptor.operationName,
                makeJSONDecoder: makeJSONDecoder
            )
            return Outcome(value: stream, bytesReceived: 0)
        }
    }
}
