import Foundation
import HTTPTypes
import NIOHTTP1
import RequestKit

/// One redirect to follow: where it leads, and how the request changes on the way.
struct Redirect {
    /// The absolute URL the `Location` field names.
    let target: URL
    /// The status that asked for the redirect.
    let status: Int

    /// The redirect a response asks for, or `nil` when it asks for none (or for a place a request cannot go).
    init?(status: Int, headers: HTTPHeaders, from request: ClientRequest) {
        guard status == 301 || status == 302 || status == 303 || status == 307 || status == 308,
            let location = headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            target.host?.isEmpty == false
        else { return nil }
        self.target = target
        self.status = status
    }

    /// The request sent to the target.
    ///
    /// `303` (except after `HEAD`), and `301` or `302` after a `POST`, continue as a `GET` without a body, as
    /// browsers and AsyncHTTPClient do. Leaving the origin drops the credentials: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, and every field marked sensitive (indexing strategy `.disallow`).
    func follow(_ request: ClientRequest) -> ClientRequest {
        var next = request
        next.url = target
        let becomesGET =
            (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headerFields[.contentLength] = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentEncoding] = nil
        }
        if !Self.sameOrigin(request.url, target) {
            next.headerFields = HTTPFields(
                request.headerFields.filter { field in
                    !Self.credentialNames.contains(field.name) && field.indexingStrategy != .disallow
                        && !(becomesGET && Self.bodyFieldNames.contains(field.name))
                }
            )
            next.headerFields[.origin] = nil
        }
        return next
    }

    private static let credentialNames: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
    private static let bodyFieldNames: Set<HTTPField.Name> = [.contentLength, .contentType, .contentEncoding]

    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        let lhsScheme = lhs.scheme?.lowercased()
        let rhsScheme = rhs.scheme?.lowercased()
        return lhsScheme == rhsScheme && lhs.host?.lowercased() == rhs.host?.lowercased()
            && (lhs.port ?? defaultPort(lhsScheme)) == (rhs.port ?? defaultPort(rhsScheme))
    }

    static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
