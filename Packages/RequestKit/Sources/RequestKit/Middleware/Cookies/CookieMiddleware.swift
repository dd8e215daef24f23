import Foundation
import HTTPTypes

/// The step that sends and stores a ``CookieStore``'s cookies, which ``RequestClient/Configuration/cookieStore`` adds.
///
/// It adds the matching cookies to each request's `Cookie` field (after a `Cookie` value the request already
/// carries) and stores the `Set-Cookie` fields of each response it passes back. Setting
/// ``RequestClient/Configuration/cookieStore`` adds one at the end of the client's middleware, so cookies are
/// chosen again for every attempt a retry middleware makes.
///
/// Redirects that the transport follows by itself are handled as a browser handles them: the cookies each redirect
/// sets are stored for the URL that set them, and the request to each new location carries the cookies chosen for
/// that location, not those of the first URL (see ``RedirectHandler``). A `Cookie` value the request carried itself
/// stays while the redirects keep to its origin. `PublicResourceClient` never sends cookies.
struct CookieMiddleware: Middleware {
    /// The store read and written.
    let store: CookieStore

    /// Creates the middleware for a store.
    init(store: CookieStore) {
        self.store = store
    }

    nonisolated(nonsending) func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        var request = request
        let own = request.headerFields[.cookie]
        if let chosen = store.cookieHeader(for: request.url) {
            Self.setCookieField(of: &request, own: own, chosen: chosen)
        }
        request.redirectHandlers.append(Redirects(store: store, own: own))
        let response = try await next(request)
        store.store(from: response.headerFields, for: response.url)
        return response
    }

    /// Sets the request's one `Cookie` field to `own` followed by `chosen`, or removes it when both are `nil`.
    static func setCookieField(of request: inout ClientRequest, own: String?, chosen: String?) {
        let combined: String?
        switch (own, chosen) {
        case (nil, nil): combined = nil
        case (let own?, nil): combined = own
        case (nil, let chosen?): combined = chosen
        case (let own?, let chosen?): combined = own.isEmpty ? chosen : own + "; " + chosen
        }
        guard let combined else {
            request.headerFields[.cookie] = nil
            return
        }
        // One `Cookie` field, as RFC 6265 asks of HTTP/1.1: the `HTTPFields` subscript would split the value into a
        // field per cookie (the HTTP/2 form), which a transport then sends as several lines.
        request.headerFields[fields: .cookie] = [HTTPField(name: .cookie, value: combined)]
    }

    /// Stores what each redirect sets and chooses the cookies for the next location.
    struct Redirects: RedirectHandler {
        let store: CookieStore
        /// The `Cookie` value the request carried before cookies were added, if any.
        let own: String?

        func willFollow(_ redirect: RedirectResponse, to next: inout ClientRequest) {
            store.store(from: redirect.headerFields, for: redirect.url)
            // A redirect that leaves the origin has dropped the whole `Cookie` field, the request's own value too.
            let kept = next.headerFields[.cookie] == nil ? nil : own
            CookieMiddleware.setCookieField(of: &next, own: kept, chosen: store.cookieHeader(for: next.url))
        }
    }
}
