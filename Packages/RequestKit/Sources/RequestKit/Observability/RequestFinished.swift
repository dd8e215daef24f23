public import Foundation
public import HTTPTypes

/// A request has finished.
public struct RequestFinished: Sendable {
    /// The number of the matching ``RequestStarted``.
    public var id: UInt64
    /// The operation: an endpoint name or `"METHOD path"`.
    public var operation: String
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The URL, with secret query values replaced by `<redacted>`.
    public var url: URL
    /// How long the request took, from start to the decoded value or the error.
    public var duration: Duration
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// Bytes of request body sent, when known.
    public var bytesSent: Int64?
    /// Bytes of response body received.
    public var bytesReceived: Int64
    /// The error, when the request failed.
    public var error: RequestKitError?
    /// What the client's HTTP cache did with the request (`hit`, `stale`, `revalidated`, `miss` or `bypass`, see
    /// ``RequestTracing/cacheResult(_:)``), or `nil` when the client has no cache or no response arrived.
    public var cacheResult: String?
}
