public import Foundation
public import HTTPTypes

/// A response as a transport returns it: the status, header fields and a streamed body.
public struct ClientResponse: Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body, consumed once.
    public var body: ClientResponse.Body
    /// The URL the response came from (after redirects).
    public var url: URL

    /// Creates a response.
    public init(
        status: HTTPResponse.Status,
        headerFields: HTTPFields = [:],
        body: ClientResponse.Body = .empty,
        url: URL
    ) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
    }

    /// The `Content-Type` header, if any.
    public var contentType: String? {
        // A response has one `Content-Type` field; finding it directly skips the joining of repeated fields that
        // the subscript does (which it still does when a server repeats the field).
        var found: String?
        for field in headerFields where field.name == .contentType {
            guard found == nil else { return headerFields[.contentType] }
            found = field.value
        }
        return found
    }

    /// The `Content-Length` header as a number, if present and valid.
    public var expectedLength: Int64? { headerFields[.contentLength].flatMap { Int64($0) } }
}
