public import Foundation

/// A request as the ``TestServer`` received it.
public struct TestRequest: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The request target: path and query, as sent.
    public var target: String
    /// The header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes (up to the server's recording limit).
    public var body: Data
    /// The length of the whole body as received, also beyond the recording limit.
    public var bodyLength: Int

    /// Creates a request value.
    public init(
        method: String,
        target: String,
        headers: [(name: String, value: String)],
        body: Data,
        bodyLength: Int? = nil
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// The path without the query.
    public var path: String {
        String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// The query items, decoded.
    public var query: [URLQueryItem] {
        URLComponents(string: target)?.queryItems ?? []
    }

    /// The first value of a header field (names compare case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
