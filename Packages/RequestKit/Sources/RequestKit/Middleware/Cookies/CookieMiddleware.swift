import Foundation
import HTTPTypes

/// The middleware that sends and stores a ``CookieStore``'s cookies.
///
/// It adds the matching cookies to each request's `Cookie` field (after a `Cookie` value the request already
/// carries) and stores the `Set-Cookie` fields of each response it passes back. Setting
/// ``RequestClient/Configuration/cookieStore`` adds one at the end of the client's middleware, so cookies are
/// chosen again for every attempt a retry middleware makes.
///
/// When the transport follows a redirect by itself, the cookies sent were chosen for the first URL, and only the
/// final response's `Set-Cookie` fields are stored (``ClientResponse/url`` is the URL after the redirects).
/// `UnsafePublicClient` never sends cookies.
public struct CookieMiddleware: Middleware {
    /// The store read and written.
    public let store: CookieStore

    /// Creates the middleware for a store.
    public init(store: CookieStore) {
        self.store = store
    }

    public func intercept(
        _ request: ClientRequest,
        next: @Sendable (ClientRequest) async throws -> ClientResponse
    ) async throws -> ClientResponse {
        var request = request
        if let cookies = store.cookieHeader(for: request.url) {
            // One `Cookie` field, as RFC 6265 asks of HTTP/1.1: the `HTTPFields` subscript would split the value into
            // a field per cookie (the HTTP/2 form), which a transport then sends as several lines.
            let combined = request.headerFields[.cookie].map { $0.isEmpty ? cookies : $0 + "; " + cookies } ?? cookies
            request.headerFields[fields: .cookie] = [HTTPField(name: .cookie, value: combined)]
        }
        let response = try await next(request)
        store.store(from: response.headerFields, for: response.url)
        return response
    }
}
