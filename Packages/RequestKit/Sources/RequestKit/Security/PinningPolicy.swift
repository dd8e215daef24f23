import Foundation

/// Certificate and public-key pins per host, shared by every client that talks to those hosts.
///
/// A pin is the SHA-256 of the server certificate's DER bytes (``Pin/certificate(sha256:)``) or of its
/// SubjectPublicKeyInfo (``Pin/publicKey(sha256:)``, which survives certificate renewal with the same key). A host
/// may list several pins: the current one and backups for the next key. A connection to a pinned host succeeds only
/// when the server's certificate matches at least one of them; otherwise it fails with
/// ``RequestKitError/Code/pinningFailed`` right after the TLS handshake, before any request is written.
///
/// ```swift
/// var pinning = PinningPolicy()
/// try pinning.pin("api.example.com", [
///     .publicKey(base64SHA256: "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="),
///     .publicKey(base64SHA256: "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="),  // backup
/// ])
/// ```
public struct PinningPolicy: Sendable, Hashable {
    /// One pin: a SHA-256 digest of a certificate or of its public key.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        /// Whether the digest covers the whole certificate or its public key.
        public let isPublicKey: Bool
        /// The 32-byte SHA-256 digest.
        public let sha256: [UInt8]

        /// A pin of the DER certificate's SHA-256.
        public static func certificate(sha256: [UInt8]) -> Pin {
            Pin(isPublicKey: false, sha256: sha256)
        }

        /// A pin of the SubjectPublicKeyInfo's SHA-256 (as used by HPKP and `openssl ... | base64`).
        public static func publicKey(sha256: [UInt8]) -> Pin {
            Pin(isPublicKey: true, sha256: sha256)
        }

        /// A public-key pin from its base64 form; `nil` when the text is not 32 bytes of base64.
        public static func publicKey(base64SHA256 text: String) -> Pin? {
            guard let bytes = Data(base64Encoded: text), bytes.count == 32 else { return nil }
            return .publicKey(sha256: Array(bytes))
        }

        /// A certificate pin from its base64 form; `nil` when the text is not 32 bytes of base64.
        public static func certificate(base64SHA256 text: String) -> Pin? {
            guard let bytes = Data(base64Encoded: text), bytes.count == 32 else { return nil }
            return .certificate(sha256: Array(bytes))
        }

        public var description: String {
            (isPublicKey ? "publicKey:" : "certificate:") + Data(sha256).base64EncodedString()
        }
    }

    private var pinsByHost: [String: [Pin]] = [:]

    /// An empty policy: nothing is pinned.
    public init() {}

    /// Whether no host is pinned.
    public var isEmpty: Bool { pinsByHost.isEmpty }

    /// The pinned host names, lower case.
    public var hosts: [String] { pinsByHost.keys.sorted() }

    /// Pins `host` to any of `pins` (the first is the current pin, the others backups).
    ///
    /// - Throws: ``RequestKitError/Code/invalidRequest`` when `pins` is empty or a digest is not 32 bytes.
    public mutating func pin(_ host: String, _ pins: [Pin]) throws(RequestKitError) {
        guard !pins.isEmpty, pins.allSatisfy({ $0.sha256.count == 32 }) else {
            throw RequestKitError(.invalidRequest, subject: host, reason: "a host needs 32-byte SHA-256 pins")
        }
        pinsByHost[host.lowercased(), default: []].append(contentsOf: pins)
    }

    /// The pins of `host`, empty when it is not pinned.
    public func pins(for host: String) -> [Pin] {
        pinsByHost[host.lowercased()] ?? []
    }
}
