import Foundation
import HTTPTypes

/// What makes two requests the same for a ``DuplicatePolicy``: the method, the normalised URL, the header fields
/// that change the response, and a digest of the credentials (never the credentials themselves).
struct RequestIdentity: Hashable, Sendable {
    /// Fields whose values select a different response.
    static let varyingFields: [HTTPField.Name] = [
        .accept, .acceptEncoding, .acceptLanguage, .range, .ifNoneMatch, .ifModifiedSince, .ifRange,
    ]
    /// Fields that identify who asks; only their digest is kept.
    static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    let method: HTTPRequest.Method
    let url: String
    let fields: [String?]
    let credentialDigest: [Int]

    init(_ request: ClientRequest) {
        method = request.method
        url = Self.normalise(request.url)
        fields = Self.varyingFields.map { request.headerFields[$0] }
        let credentials = Self.credentialFields.map { request.headerFields[$0] }
        if credentials.allSatisfy({ $0 == nil }) {
            credentialDigest = []
        } else {
            // Two independently salted SipHash values of a per-process random seed: 128 bits, kept only in memory.
            credentialDigest = [1, 2].map { salt in
                var hasher = Hasher()
                hasher.combine(salt)
                for credential in credentials { hasher.combine(credential) }
                return hasher.finalize()
            }
        }
    }

    /// Lower-case scheme and host, no default port, `/` for an empty path, no fragment; the query as sent.
    static func normalise(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "http" && components.port == 80)
            || (components.scheme == "https" && components.port == 443)
        {
            components.port = nil
        }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}
