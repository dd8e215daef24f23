public import Foundation

extension CookieStore {
    /// A cookie as the store keeps it, after the rules of RFC 6265 have been applied to its `Set-Cookie` line.
    public struct Cookie: Sendable, Hashable {
        /// The cookie's name.
        public let name: String
        /// The cookie's value, as the server sent it.
        public let value: String
        /// The host (for a host-only cookie) or the domain it is sent to, in lower case, without a leading dot.
        public let domain: String
        /// Whether the cookie goes only to the host that set it (it had no `Domain` attribute).
        public let isHostOnly: Bool
        /// The path it is sent under.
        public let path: String
        /// When it expires (from `Max-Age`, or else `Expires`); `nil` for a session cookie, kept as long as the
        /// store.
        public let expires: Date?
        /// Whether it is sent only over `https`.
        public let isSecure: Bool
        /// Whether the server marked it `HttpOnly`. A client is not a script, so the cookie is still sent.
        public let isHTTPOnly: Bool
        /// When it was first stored; replacing a cookie keeps the time of the one it replaces.
        public let created: Date

        /// Whether it has expired at `date`.
        public func isExpired(at date: Date) -> Bool {
            expires.map { $0 <= date } ?? false
        }

        func replacing(created: Date) -> Cookie {
            Cookie(
                name: name,
                value: value,
                domain: domain,
                isHostOnly: isHostOnly,
                path: path,
                expires: expires,
                isSecure: isSecure,
                isHTTPOnly: isHTTPOnly,
                created: created
            )
        }
    }
}
