/// How a request body is compressed before sending.
public struct ContentEncoding: Sendable, Hashable, CustomStringConvertible {
    private enum Value: String, Sendable, Hashable {
        case identity
        case gzip
    }
    private let value: Value

    /// No compression (the default).
    public static let identity = ContentEncoding(value: .identity)
    /// gzip, sent with `Content-Encoding: gzip`. Applies to bodies held in memory (parameters, JSON, data).
    public static let gzip = ContentEncoding(value: .gzip)

    var isGzip: Bool { value == .gzip }

    public var description: String { value.rawValue }
}
