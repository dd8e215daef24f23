public import Foundation
public import HTTPTypes

/// A request the server did not process was sent again, on another connection.
///
/// The client replays a request, without a ``RetryPolicy`` and without counting an attempt, when the failure shows
/// that the server never acted on it: an HTTP/2 stream the server refused (any method), or a connection that closed
/// before any byte of the response arrived (HTTP/2 `GOAWAY` below the stream, a keep-alive connection the server had
/// just closed), for an idempotent method or a request with an `Idempotency-Key`.
public struct RequestReplayed: Sendable {
    /// The number of the request's ``RequestStarted``.
    public var id: UInt64
    /// The operation: an endpoint name or `"METHOD path"`.
    public var operation: String
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The URL, with secret query values replaced by `<redacted>`.
    public var url: URL
    /// The attempt the replay belongs to, from 1.
    public var attempt: Int
    /// The replay's number within the attempt, from 1.
    public var replay: Int
    /// Why the last sending did not count: the server refused it or the connection closed first.
    public var error: RequestKitError
}
