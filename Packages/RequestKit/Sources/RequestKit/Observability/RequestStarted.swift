public import Foundation
public import HTTPTypes

/// A request has started.
public struct RequestStarted: Sendable {
    /// A number unique within the client, the same in the matching ``RequestFinished``.
    public var id: UInt64
    /// The operation: an endpoint name or `"METHOD path"`.
    public var operation: String
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The URL, with secret query values replaced by `<redacted>`.
    public var url: URL
    /// The header fields, with secrets (authorization, cookies, tokens, keys) replaced by `<redacted>`.
    public var redactedHeaderFields: HTTPFields
}
