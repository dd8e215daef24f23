import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the given bytes in place of every request body the generated code made, with their `Content-Length`: the
/// typed client cannot make a malformed body on its own, and the check needs one to see the documented problem
/// response decode.
struct BodyReplacingMiddleware: ClientMiddleware {
    var body: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard body != nil else { return try await next(request, nil, baseURL) }
        // The runtime set `Content-Length` for the body it made; a stale one would keep the daemon reading.
        var request = request
        request.headerFields[.contentLength] = String(self.body.utf8.count)
        return try await next(request, HTTPBody(self.body), baseURL)
    }
}
