import Crypto
import NIOCore
import NIOSSL
import RequestKit

/// The server's certificate matched none of the pins of a host it serves.
struct PinningFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Checks a freshly handshaken connection's certificate against the pinning policy.
///
/// The certificate has already been verified (chain and host name) by NIOSSL. Every pinned host the certificate is
/// valid for (by its DNS and IP subject alternative names) must be matched by one of that host's pins; since the
/// host actually connected to is among those names, a connection to a pinned host always meets its pins.
struct PinVerifier: Sendable {
    let policy: PinningPolicy

    func verify(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let handler: NIOSSLHandler
            do {
                handler = try channel.pipeline.syncOperations.handler(type: NIOSSLHandler.self)
            } catch {
                return  // Plain HTTP: nothing to pin. Pinned hosts are refused over http before sending.
            }
            guard let certificate = handler.peerCertificate else {
                throw PinningFailure(reason: "the server sent no certificate")
            }
            try check(certificate)
        }
    }

    func check(_ certificate: NIOSSLCertificate) throws {
        let names = Self.names(of: certificate)
        let pinnedHosts = policy.hosts.filter { host in names.contains { Self.matches(pattern: $0, host: host) } }
        guard !pinnedHosts.isEmpty else { return }
        let certificateDigest = Array(SHA256.hash(data: try certificate.toDERBytes()))
        let keyDigest = Array(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes()))
        for host in pinnedHosts {
            let matched = policy.pins(for: host).contains { pin in
                pin.sha256 == (pin.isPublicKey ? keyDigest : certificateDigest)
            }
            guard matched else {
                throw PinningFailure(reason: "the certificate of \(host) matches none of its pins")
            }
        }
    }

    static func names(of certificate: NIOSSLCertificate) -> [String] {
        var names: [String] = []
        for name in certificate._subjectAlternativeNames() {
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            switch name.nameType {
            case .dnsName:
                names.append(String(decoding: bytes, as: UTF8.self).lowercased())
            case .ipAddress where bytes.count == 4:
                names.append(bytes.map(String.init).joined(separator: "."))
            default:
                continue
            }
        }
        return names
    }

    static func matches(pattern: String, host: String) -> Bool {
        if pattern == host { return true }
        guard pattern.hasPrefix("*.") else { return false }
        let suffix = pattern.dropFirst(1)
        guard host.hasSuffix(suffix) else { return false }
        return !host.dropLast(suffix.count).contains(".")
    }
}
