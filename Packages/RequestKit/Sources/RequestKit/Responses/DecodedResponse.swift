public import Foundation
public import HTTPTypes

/// A decoded response value with the status, header fields and URL it came with.
public struct DecodedResponse<Value: Sendable>: Sendable {
    /// The decoded body.
    public var value: Value
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The response header fields.
    public var headerFields: HTTPFields
    /// The URL the response came from.
    public var url: URL

    /// Creates a decoded response.
    public init(value: Value, status: HTTPResponse.Status, headerFields: HTTPFields, url: URL) {
        self.value = value
        self.status = status
        self.headerFields = headerFields
        self.url = url
    }
}
