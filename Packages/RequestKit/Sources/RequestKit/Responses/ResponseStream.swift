public import Foundation
public import HTTPTypes

/// A response whose body is read as it arrives: the status and header fields, and the body as an
/// `AsyncSequence` of chunks, of lines (``lines(maximumLength:)``), of newline-delimited JSON values
/// (``jsonLines(of:maximumLength:)``) or of server-sent events (``serverSentEvents(maximumLength:)``).
///
/// The status and content type were validated before the stream was handed out, as for a body read whole. The body
/// is read from the connection only as fast as it is iterated, so the server is slowed down by a slow reader rather
/// than the body piling up in memory; nothing but the current chunk and line is held. A stream is consumed once;
/// stop iterating (or cancel the task) to close it.
///
/// ```swift
/// let stream = try await client.stream(.get, "vehicles/7/log")
/// for try await line in stream.lines() {
///     print(line)
/// }
/// ```
public struct ResponseStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = RequestKitError

    /// The longest line the line-based views accept unless told otherwise: 1 MiB.
    public static let defaultMaximumLineLength = 1024 * 1024

    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// The response header fields.
    public let headerFields: HTTPFields
    /// The URL the response came from (after redirects).
    public let url: URL
    /// The body's chunks as the transport delivers them, with the transport's own errors.
    public let body: ClientResponse.Body
    let operation: String
    let makeJSONDecoder: (@Sendable () -> JSONDecoder)?

    init(response: ClientResponse, operation: String, makeJSONDecoder: (@Sendable () -> JSONDecoder)?) {
        self.status = response.status
        self.headerFields = response.headerFields
        self.url = response.url
        self.body = response.body
        self.operation = operation
        self.makeJSONDecoder = makeJSONDecoder
    }

    /// The `Content-Type` header, if any.
    public var contentType: String? { headerFields[.contentType] }

    /// Iterates the body's chunks; transport failures are thrown as ``RequestKitError``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = Data
        public typealias Failure = RequestKitError
        var base: ClientResponse.Body.AsyncIterator
        let operation: String
        let url: URL

        public mutating func next() async throws(RequestKitError) -> Data? {
            do {
                return try await base.next()
            } catch {
                throw RequestKitError.wrapping(error, operation: operation, url: url)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), operation: operation, url: url)
    }

    /// The body as lines of text (UTF-8), split at LF, CR LF or CR; the terminators are not included.
    ///
    /// - Parameter maximumLength: the longest line in bytes; a longer one throws
    ///   ``RequestKitError/Code/bodyTooLarge``.
    public func lines(maximumLength: Int = ResponseStream.defaultMaximumLineLength) -> ResponseLines {
        ResponseLines(stream: self, maximumLength: maximumLength)
    }

    /// The body as newline-delimited JSON (NDJSON, JSON Lines): one `Model` decoded from each line, blank lines
    /// skipped.
    ///
    /// A line that does not decode throws ``RequestKitError/Code/decodingFailed`` naming the line number and the
    /// field path, as a whole body would.
    public func jsonLines<Model: Decodable & Sendable>(
        of type: Model.Type,
        maximumLength: Int = ResponseStream.defaultMaximumLineLength
    ) -> JSONLines<Model> {
        JSONLines(lines: lines(maximumLength: maximumLength), makeJSONDecoder: makeJSONDecoder)
    }

    /// The body as server-sent events (`text/event-stream`, as the WHATWG HTML standard parses it).
    ///
    /// - Parameter maximumLength: the longest line, and the most data one event may gather, in bytes.
    public func serverSentEvents(maximumLength: Int = ResponseStream.defaultMaximumLineLength) -> ServerSentEvents {
        ServerSentEvents(lines: lines(maximumLength: maximumLength))
    }
}
