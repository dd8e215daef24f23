import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import RequestKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells which verification check a server's certificate failed.
///
/// A hostname mismatch is reported by NIOSSL as such. A chain that fails verification is reported by BoringSSL
/// only as `CERTIFICATE_VERIFY_FAILED`; to say why, one more connection is opened that only completes the handshake
/// far enough to see the certificates the server presents (no request is ever written on it), and their dates are
/// read: an expired or not yet valid certificate is named as such, anything else means the chain does not lead to
/// a trusted root.
enum TLSDiagnosis {
    /// The verification failure `error` stands for, or `nil` when it is no certificate verification failure.
    static func failure(
        from error: any Error,
        url: URL,
        tls: TLSConfiguration?,
        timeout: TimeAmount
    ) async -> TLSVerificationError? {
        let host = url.host ?? ""
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return TLSVerificationError(.hostnameMismatch, host: host, detail: String(describing: error))
        }
        guard let error = error as? NIOSSLError, case .handshakeFailed(let reason) = error else { return nil }
        let detail = String(describing: reason)
        guard detail.contains("CERTIFICATE_VERIFY_FAILED") else { return nil }
        guard let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : nil),
            let chain = await presentedChain(host: host, port: port, tls: tls, timeout: timeout), !chain.isEmpty
        else {
            return TLSVerificationError(.other, host: host, detail: detail)
        }
        let now = time(nil)
        if chain.contains(where: { $0.notValidAfter < now }) {
            return TLSVerificationError(.expired, host: host, detail: detail)
        }
        if chain.contains(where: { $0.notValidBefore > now }) {
            return TLSVerificationError(.notYetValid, host: host, detail: detail)
        }
        return TLSVerificationError(.untrustedIssuer, host: host, detail: detail)
    }

    /// The certificates the server presents, read in a handshake that is refused as soon as they arrive.
    private static func presentedChain(
        host: String,
        port: Int,
        tls: TLSConfiguration?,
        timeout: TimeAmount
    ) async -> [NIOSSLCertificate]? {
        let captured = CapturedChain()
        do {
            let configuration = tls ?? TLSConfiguration.makeClientConfiguration()
            let context = try NIOSSLContext(configuration: configuration)
            // SNI carries names only, never addresses.
            let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
            let bootstrap = ClientBootstrap(group: HTTPClient.defaultEventLoopGroup)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(
                            context: context,
                            serverHostname: serverName,
                            customVerificationCallback: { certificates, promise in
                                captured.store(certificates)
                                promise.succeed(.failed)
                            }
                        )
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
            let channel = try await bootstrap.connect(host: host, port: port).get()
            // The refused handshake closes the channel; a server that never answers is cut off at the timeout.
            let cutOff = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
            try? await channel.closeFuture.get()
            cutOff.cancel()
        } catch {
            return captured.certificates
        }
        return captured.certificates
    }
}

/// The certificates a probe saw, handed from the event loop to the waiting task.
private final class CapturedChain: Sendable {
    private let value = Mutex<[NIOSSLCertificate]?>(nil)

    func store(_ certificates: [NIOSSLCertificate]) {
        value.withLock { $0 = certificates }
    }

    var certificates: [NIOSSLCertificate]? {
        value.withLock { $0 }
    }
}
