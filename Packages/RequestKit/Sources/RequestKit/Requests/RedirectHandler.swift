public import Foundation
public import HTTPTypes

/// Something a request carries to see, and adjust, each redirect that a transport follows by itself.
///
/// A transport that follows redirects (such as `AsyncHTTPClientTransport`) calls every handler in
/// ``ClientRequest/redirectHandlers`` once per redirect, in order, after it has made the request for the new
/// location and before it sends it. Middleware that changes a request for its URL adds a handler so that the
/// change is made again for each location: the cookie step (``RequestClient/Configuration/cookieStore``) stores the
/// cookies a redirect sets and chooses the cookies for the next URL.
///
/// ```swift
/// struct LogRedirects: RedirectHandler {
///     func willFollow(_ redirect: RedirectResponse, to next: inout ClientRequest) {
///         print("\(redirect.status.code) from \(redirect.url) to \(next.url)")
///     }
/// }
/// ```
///
/// A handler runs on the transport's path to the next hop: it should be quick and must not block.
public protocol RedirectHandler: Sendable {
    /// Called before `next`, the request for the location `redirect` names, is sent.
    ///
    /// - Parameters:
    ///   - redirect: The response that asked for the redirect; its body is not read.
    ///   - next: The request the transport sends next, already changed as the redirect asks (method, body, and
    ///     credentials dropped when it leaves the origin). A handler may change its header fields.
    func willFollow(_ redirect: RedirectResponse, to next: inout ClientRequest)
}

/// The head of a response that asked for a redirect.
public struct RedirectResponse: Sendable {
    /// The status (`301`, `302`, `303`, `307` or `308`).
    public var status: HTTPResponse.Status
    /// The header fields, `Location` among them.
    public var headerFields: HTTPFields
    /// The URL that answered with the redirect.
    public var url: URL

    /// Creates the head of a redirect.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, url: URL) {
        self.status = status
        self.headerFields = headerFields
        self.url = url
    }
}
