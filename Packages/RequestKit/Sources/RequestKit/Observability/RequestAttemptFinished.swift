public import Foundation
public import HTTPTypes

/// One attempt of a request has finished, told to observers when the client has a ``RetryPolicy``.
///
/// A request sent once is one attempt; each retry is another one, with the next ``attempt`` number. The request's
/// ``RequestFinished`` follows the last attempt.
public struct RequestAttemptFinished: Sendable {
    /// The number of the request's ``RequestStarted``.
    public var id: UInt64
    /// The operation: an endpoint name or `"METHOD path"`.
    public var operation: String
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The URL, with secret query values replaced by `<redacted>`.
    public var url: URL
    /// The attempt's number, from 1.
    public var attempt: Int
    /// How long the attempt took, until its response head or its error.
    public var duration: Duration
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// The error, when the attempt failed.
    public var error: RequestKitError?
    /// The wait before the next attempt, or `nil` when this attempt was the last.
    public var retryDelay: Duration?
}
