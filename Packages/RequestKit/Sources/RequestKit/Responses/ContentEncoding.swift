/// How a request body is compressed before sending.
public struct ContentEncoding: Sendable, Hashable, CustomStringConvertible {
    private enum Value: String, Sendable, Hashable {
        case identity
        case gzip
    }
    private let value: Value

    /// No compression (the default).
    public static let identity = ContentEncoding(value: .identity)
    /// gzip, sent with `Content-Encoding: gzip`. Bodies in memory are compressed before sending; file, multipart
    /// upload and stream bodies are compressed as they are sent, chunked.
    public static let gzip = ContentEncoding(value: .gzip)

    var isGzip: Bool { value == .gzip }

    public var description: String { value.rawValue }
}
