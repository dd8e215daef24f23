public import Foundation
public import HTTPTypes
public import ModelKit

/// Builds a request step by step: method, headers, query, body parameters or multipart parts, content encoding,
/// validation and timeouts; then sends it with ``submit()`` or ``submitAsUpload(_:)``.
///
/// ```swift
/// let response = try await client.makeRequest(.post, "vehicles/7/documents")
///     .header(.authorization, "Bearer \(token)")
///     .part(name: "meta", json: ["kind": "registration"])
///     .part(name: "scan", fileURL: scanURL, mimeType: "application/pdf")
///     .submitAsUpload(true)
/// ```
///
/// A builder is a value: each step returns a changed copy, so a half-built request can be reused.
public struct RequestBuilder: Sendable {
    private let client: RequestClient
    var descriptor: RequestDescriptor
    private var parameters = RequestParameters()
    private var encoding = BodyEncoding.json
    private var multipart: MultipartBody?
    private var contentEncoding = ContentEncoding.identity
    private var uploadProgress: (@Sendable (TransferProgress) -> Void)?
    private var problems: [String] = []

    init(client: RequestClient, method: HTTPRequest.Method, path: String) {
        self.client = client
        self.descriptor = RequestDescriptor(method: method, path: path)
    }

    /// Sets a header field, replacing earlier values.
    ///
    /// With `sensitive`, the field is treated like `Authorization`: redacted in logs and observers and dropped when a
    /// redirect leaves the origin.
    public func header(_ name: HTTPField.Name, _ value: String, sensitive: Bool = false) -> RequestBuilder {
        var copy = self
        var field = HTTPField(name: name, value: value)
        if sensitive { field.indexingStrategy = .disallow }
        copy.descriptor.headerFields[fields: name] = [field]
        return copy
    }

    /// Adds a query item.
    public func query(_ name: String, _ value: String) -> RequestBuilder {
        var copy = self
        copy.descriptor.query.append(FormField(name, value))
        return copy
    }

    /// Adds body parameters (sent as the query for methods without a body), JSON unless `encoding` says form.
    public func parameters(_ parameters: RequestParameters, encoding: BodyEncoding = .json) -> RequestBuilder {
        var copy = self
        copy.parameters.pairs += parameters.pairs
        copy.encoding = encoding
        return copy
    }

    /// Sets a raw body with its content type.
    public func body(_ body: ClientRequest.Body, contentType: String) -> RequestBuilder {
        var copy = self
        copy.descriptor.body = body
        copy.descriptor.headerFields[.contentType] = contentType
        return copy
    }

    /// Sets an `Encodable` value as a JSON body, encoded with the client's JSON encoder.
    public func jsonBody<Value: Encodable>(_ value: Value) -> RequestBuilder {
        var copy = self
        do {
            copy.descriptor.body = .data(try client.configuration.makeJSONEncoder().encode(value))
            copy.descriptor.headerFields[.contentType] = "application/json"
        } catch {
            copy.problems.append("the JSON body does not encode: \(String(describing: error).prefix(120))")
        }
        return copy
    }

    /// Compresses the body before sending.
    ///
    /// Bodies held in memory are compressed at once and sent with their compressed length; file, multipart-upload
    /// and stream bodies are compressed chunk by chunk as they are sent, with chunked transfer encoding.
    public func contentEncoding(_ encoding: ContentEncoding) -> RequestBuilder {
        var copy = self
        copy.contentEncoding = encoding
        return copy
    }

    /// Sets what counts as a successful response.
    public func validation(_ validation: ResponseValidation) -> RequestBuilder {
        var copy = self
        copy.descriptor.validation = validation
        return copy
    }

    /// Sets the timeouts of this request.
    public func timeouts(_ timeouts: Timeouts) -> RequestBuilder {
        var copy = self
        copy.descriptor.timeouts = timeouts
        return copy
    }

    /// Lets the client's ``RetryPolicy`` retry this request as `mode` says (for example
    /// ``RetryMode/withIdempotencyKey`` for a `POST` the server deduplicates).
    public func retry(_ mode: RetryMode) -> RequestBuilder {
        var copy = self
        copy.descriptor.retryMode = mode
        return copy
    }

    /// Follows `policy` while an identical request is in flight, whatever the client's
    /// ``RequestClient/Configuration/duplicatePolicy``.
    public func duplicatePolicy(_ policy: DuplicatePolicy) -> RequestBuilder {
        var copy = self
        copy.descriptor.duplicatePolicy = policy
        return copy
    }

    /// Sets how this request uses the client's HTTP cache (``RequestClient/Configuration/cache``); by default
    /// ``CachePolicy/useProtocol``.
    public func cachePolicy(_ policy: CachePolicy) -> RequestBuilder {
        var copy = self
        copy.descriptor.cachePolicy = policy
        return copy
    }

    /// Names the operation for logs, metrics and errors.
    public func operation(_ name: String) -> RequestBuilder {
        var copy = self
        copy.descriptor.operation = name
        return copy
    }

    /// Reports the body's progress as the transport sends it.
    public func uploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> RequestBuilder {
        var copy = self
        copy.uploadProgress = handler
        return copy
    }

    // MARK: - Multipart

    /// Appends a multipart part of bytes, with an optional file name and MIME type.
    public func part(name: String, data: Data, fileName: String? = nil, mimeType: String? = nil) -> RequestBuilder {
        appending(MultipartBody.Part(name: name, fileName: fileName, mimeType: mimeType, content: .data(data)))
    }

    /// Appends a multipart part holding a JSON value (`application/json`).
    public func part(name: String, json: JSONValue) -> RequestBuilder {
        appending(
            MultipartBody.Part(name: name, fileName: nil, mimeType: "application/json", content: .data(json.jsonData()))
        )
    }

    /// Appends a file on disk as a part, read in chunks while sending. The file name defaults to the file's name.
    public func part(name: String, fileURL: URL, fileName: String? = nil, mimeType: String? = nil) -> RequestBuilder {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else {
            var copy = self
            copy.problems.append("the file \(fileURL.lastPathComponent) cannot be read")
            return copy
        }
        return appending(
            MultipartBody.Part(
                name: name,
                fileName: fileName ?? fileURL.lastPathComponent,
                mimeType: mimeType ?? "application/octet-stream",
                content: .file(fileURL, length: size)
            )
        )
    }

    /// Appends a part produced by an async stream of exactly `length` bytes; `makeStream` is called for every
    /// attempt, so the part can be replayed.
    public func part(
        name: String,
        length: Int64,
        fileName: String? = nil,
        mimeType: String? = nil,
        stream makeStream: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
    ) -> RequestBuilder {
        appending(
            MultipartBody.Part(
                name: name,
                fileName: fileName,
                mimeType: mimeType,
                content: .stream(length: length, make: makeStream)
            )
        )
    }

    private func appending(_ part: MultipartBody.Part) -> RequestBuilder {
        var copy = self
        var body = copy.multipart ?? MultipartBody()
        body.parts.append(part)
        copy.multipart = body
        return copy
    }

    // MARK: - Sending

    /// Sends the request and decodes the body by media type. Bodies from files, streams and multipart parts are
    /// streamed as uploads; others are sent from memory.
    public func submit() async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await client.perform(try finished(upload: nil), decoding: .content)
    }

    /// Sends the request and decodes its JSON body into a model.
    public func submit<Model: Decodable & Sendable>(
        as type: Model.Type
    ) async throws(RequestKitError)
        -> DecodedResponse<Model>
    {
        try await client.perform(try finished(upload: nil), decoding: .model(type))
    }

    /// Sends the request, stating whether it is an upload.
    ///
    /// An upload streams its body and is only possible for methods with a body (`POST`, `PUT`, `PATCH`) and a
    /// body to send; anything else fails with ``RequestKitError/Code/invalidRequest`` before sending.
    public func submitAsUpload(_ upload: Bool) async throws(RequestKitError) -> DecodedResponse<ResponseContent> {
        try await client.perform(try finished(upload: upload), decoding: .content)
    }

    /// The descriptor to send, with the body assembled, encoded and instrumented.
    func finished(upload: Bool?) throws(RequestKitError) -> RequestDescriptor {
        var descriptor = self.descriptor
        let operation = descriptor.operationName
        func refuse(_ reason: String) -> RequestKitError {
            RequestKitError(.invalidRequest, subject: descriptor.path, reason: reason, operation: operation)
        }
        if let problem = problems.first { throw refuse(problem) }
        if var multipart {
            guard descriptor.method.hasRequestBody else {
                throw refuse("multipart parts need a method with a body, not \(descriptor.method.rawValue)")
            }
            let fields = parameters.formFields.map { field in
                MultipartBody.Part(
                    name: field.name,
                    fileName: nil,
                    mimeType: nil,
                    content: .data(Data(field.value.utf8))
                )
            }
            multipart.parts.insert(contentsOf: fields, at: 0)
            descriptor.body = multipart.makeBody()
            descriptor.headerFields[.contentType] = multipart.contentType
        } else {
            descriptor.apply(parameters, encoding: encoding)
        }
        if upload == true {
            guard descriptor.method.hasRequestBody else {
                throw refuse("an upload needs a method with a body, not \(descriptor.method.rawValue)")
            }
            guard descriptor.body != nil else { throw refuse("an upload needs a body") }
        }
        if contentEncoding.isGzip, let body = descriptor.body {
            // Bodies in memory are compressed now and keep a length; files and streams are compressed as they are
            // sent, chunked, since their compressed length is known only at the end.
            if let data = body.data {
                descriptor.body = .data(try Gzip.compress(data))
            } else {
                descriptor.body = body.gzipStreamed()
            }
            descriptor.headerFields[.contentEncoding] = "gzip"
            descriptor.headerFields[.contentLength] = nil
        }
        if let uploadProgress, let body = descriptor.body {
            descriptor.body = body.reportingProgress(uploadProgress)
        }
        return descriptor
    }
}

extension RequestClient {
    /// Starts building a request with `method` to `path` (relative to the environment).
    public func makeRequest(_ method: HTTPRequest.Method, _ path: String) -> RequestBuilder {
        RequestBuilder(client: self, method: method, path: path)
    }
}
