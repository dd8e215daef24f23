public import Foundation
public import HTTPTypes

/// A response as a transport returns it: the status, header fields and a streamed body.
public struct ClientResponse: Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body, consumed once.
    public var body: ResponseBody
    /// The URL the response came from (after redirects).
    public var url: URL

    /// Creates a response.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: ResponseBody = .empty, url: URL) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
    }

    /// The `Content-Type` header, if any.
    public var contentType: String? { headerFields[.contentType] }

    /// The `Content-Length` header as a number, if present and valid.
    public var expectedLength: Int64? { headerFields[.contentLength].flatMap { Int64($0) } }
}
