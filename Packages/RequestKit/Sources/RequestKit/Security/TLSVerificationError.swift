/// Why a server's certificate failed TLS verification: the underlying error of
/// ``RequestKitError/Code/tlsVerificationFailed``.
///
/// ```swift
/// do {
///     _ = try await client.get("vehicles")
/// } catch where error.code == .tlsVerificationFailed {
///     let failure = error.underlying as? TLSVerificationError
///     print(failure?.code ?? "unknown")   // for example "expired"
/// }
/// ```
public struct TLSVerificationError: Error, Sendable, CustomStringConvertible {
    /// The verification step that failed.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case untrustedIssuer
            case expired
            case notYetValid
            case hostnameMismatch
            case other
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The certificate chain does not lead to a trusted root: an unknown or private certificate authority, or
        /// a self-signed certificate.
        public static let untrustedIssuer = Code(.untrustedIssuer)
        /// The server's certificate is past its end date.
        public static let expired = Code(.expired)
        /// The server's certificate is not valid yet.
        public static let notYetValid = Code(.notYetValid)
        /// The certificate is valid, but not for the host name (or address) the request was sent to.
        public static let hostnameMismatch = Code(.hostnameMismatch)
        /// The chain failed verification for another reason (for example an unsuitable key usage or a broken
        /// signature); ``TLSVerificationError/detail`` has the TLS library's words.
        public static let other = Code(.other)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`untrustedIssuer`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// The check that failed.
    public let code: Code

    /// The check's name (`expired`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }
    /// The host the client connected to.
    public let host: String
    /// What the TLS library reported.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, host: String, detail: String) {
        self.code = code
        self.host = host
        self.detail = detail
    }

    /// Creates an error.
    @available(*, deprecated, renamed: "init(_:host:detail:)")
    public init(code: Code, host: String, detail: String) {
        self.init(code, host: host, detail: detail)
    }

    public var description: String {
        "TLS verification of \(host.prefix(100)) failed (\(code)): \(detail.prefix(300))"
    }
}
