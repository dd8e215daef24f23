import HTTPTypes

/// Puts credentials on requests, recognises a rejected credential, and refreshes it.
///
/// Set one on a client with ``RequestClient/Configuration/authenticator``. The client applies the current credential
/// to every request; when the server rejects it (by default with `401 Unauthorized`), the client refreshes it once
/// and sends the request again with the new one. Refreshes are single-flight: however many requests are rejected
/// together, ``refresh(rejected:)`` runs once and all of them are replayed with its credential, and a request
/// rejected with a credential that was already replaced is replayed with the current one without another refresh.
/// A refresh that fails, or a replay that is rejected again, fails with
/// ``RequestKitError/Code/authenticationFailed``; there is no second refresh for the same request.
///
/// ``BearerTokenAuthenticator`` covers bearer tokens with a refresh closure. See <doc:Authentication>.
public protocol Authenticator: Sendable {
    /// The credential: a token, a key pair, whatever ``apply(_:to:)`` puts on a request. Compared to tell whether a
    /// rejected credential has been replaced already.
    associatedtype Credential: Sendable & Equatable

    /// The credential to start with, or `nil` to ``refresh(rejected:)`` before the first request. `nil` by default.
    var initialCredential: Credential? { get }

    /// Puts `credential` on `request` (an `Authorization` field, say). Throwing refuses the request; nothing is sent.
    func apply(_ credential: Credential, to request: inout ClientRequest) throws

    /// Whether `response` says the credential `request` carried is no longer valid. By default: status 401.
    func isRejected(_ response: ClientResponse, for request: ClientRequest) -> Bool

    /// Gets a new credential. `rejected` is the credential the server refused (`nil` when there was none yet).
    /// An error fails every request waiting for the refresh with ``RequestKitError/Code/authenticationFailed``.
    func refresh(rejected: Credential?) async throws -> Credential
}

extension Authenticator {
    public var initialCredential: Credential? { nil }

    public func isRejected(_ response: ClientResponse, for request: ClientRequest) -> Bool {
        response.status.code == 401
    }
}
