import Foundation

extension TestServer {
    /// Answers every request with a JSON description of it, which ``EchoedRequest`` decodes: the method, the path,
    /// the query items, the body as text, and the `Content-Type` and `Authorization` header fields.
    public static let echo: Handler = { request in
        let object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "query": request.query.map { "\($0.name)=\($0.value ?? "")" },
            "body": request.text,
            "contentType": request.header("content-type") ?? "",
            "authorization": request.header("authorization") ?? "",
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return TestResponse(status: 200, headers: [("Content-Type", "application/json")], body: .data(data))
    }
}

/// What ``TestServer/echo`` answers: the request as the server saw it.
public struct EchoedRequest: Decodable, Sendable {
    /// The method, such as `GET`.
    public let method: String
    /// The path, without the query.
    public let path: String
    /// The query items, each as `name=value` (`name=` when it has no value).
    public let query: [String]
    /// The body as UTF-8 text.
    public let body: String
    /// The `Content-Type` header field, or `""`.
    public let contentType: String
    /// The `Authorization` header field, or `""`.
    public let authorization: String
}
