import HTTPTypes

/// An ``Authenticator`` for bearer tokens (RFC 6750): sends `Authorization: Bearer <token>` and gets a new token
/// from a closure when the server rejects the current one.
///
/// ```swift
/// configuration.authenticator = BearerTokenAuthenticator(token: savedToken) { rejected in
///     try await identity.refreshToken(replacing: rejected)
/// }
/// ```
///
/// The field is marked sensitive, so logs and observers never show the token and a redirect to another origin
/// drops it.
public struct BearerTokenAuthenticator: Authenticator {
    public let initialCredential: String?
    private let rejects: (@Sendable (ClientResponse) -> Bool)?
    private let makeToken: @Sendable (String?) async throws -> String

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - token: the token to start with, or `nil` to call `refresh` before the first request.
    ///   - isRejected: tells whether a response rejects the token; by default status 401.
    ///   - refresh: returns a new token, given the rejected one (`nil` when there was none yet).
    public init(
        token: String? = nil,
        isRejected: (@Sendable (ClientResponse) -> Bool)? = nil,
        refresh: @escaping @Sendable (_ rejected: String?) async throws -> String
    ) {
        self.initialCredential = token
        self.rejects = isRejected
        self.makeToken = refresh
    }

    public func apply(_ credential: String, to request: inout ClientRequest) {
        Self.put(Self.field(for: credential), on: &request)
    }

    /// The `Authorization` field of `token`, which indexing tables must not keep (HPACK's "never indexed").
    static func field(for token: String) -> HTTPField {
        var field = HTTPField(name: .authorization, value: "Bearer " + token)
        field.indexingStrategy = .disallow
        return field
    }

    /// Puts `field` on `request` in place of any `Authorization` field it has.
    static func put(_ field: HTTPField, on request: inout ClientRequest) {
        // A request rarely carries a field of its own to replace: appending builds no list of one field.
        if request.headerFields.contains(.authorization) {
            request.headerFields[fields: .authorization] = [field]
        } else {
            request.headerFields.append(field)
        }
    }

    public func isRejected(_ response: ClientResponse, for request: ClientRequest) -> Bool {
        rejects?(response) ?? (response.status.code == 401)
    }

    public func refresh(rejected: String?) async throws -> String {
        try await makeToken(rejected)
    }
}
