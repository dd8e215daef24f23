public import Foundation
public import HTTPTypes

/// A finished download: where the file is and what the server said.
public struct DownloadResult: Sendable {
    /// The destination the file was moved to.
    public var fileURL: URL
    /// The final status (`200`, or `206` for a resumed download).
    public var status: HTTPResponse.Status
    /// The response header fields.
    public var headerFields: HTTPFields
    /// The size of the file.
    public var totalBytes: Int64
    /// Whether the download continued from a partial file.
    public var resumed: Bool
}
