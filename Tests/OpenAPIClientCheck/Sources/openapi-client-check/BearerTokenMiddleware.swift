import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds `Authorization: Bearer TOKEN` to every request: the generator makes no code for the document's
/// `securitySchemes`, and a `ClientMiddleware` is the runtime's place for it.
struct BearerTokenMiddleware: ClientMiddleware {
    var token: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
