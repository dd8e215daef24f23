public import Foundation
import NIOSSL
public import RequestKit

extension AsyncHTTPClientTransport.Configuration {
    /// Trusts the certificate authorities of a PEM text (one or more `BEGIN CERTIFICATE` blocks), for servers whose
    /// certificates a private CA issued; no NIOSSL import is needed.
    ///
    /// By default the given authorities *replace* the system trust store: a client of a service behind a private
    /// CA then accepts only certificates from that CA, and a certificate a public CA issued for the same name
    /// (mistakenly or not) is refused. Pass `includingSystemRoots: true` to trust both, for a transport that also
    /// reaches public hosts. Other settings of ``tls`` are kept.
    ///
    /// ```swift
    /// var configuration = AsyncHTTPClientTransport.Configuration()
    /// try configuration.trustCertificates(pem: String(contentsOf: caURL, encoding: .utf8))
    /// ```
    ///
    /// - Throws: ``RequestKit/RequestKitError/Code/invalidRequest`` when the text holds no certificate or one that
    ///   does not parse.
    public mutating func trustCertificates(pem: String, includingSystemRoots: Bool = false) throws(RequestKitError) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw RequestKitError(
                .invalidRequest,
                subject: "trusted certificates",
                reason: "the PEM text does not parse as certificates",
                underlying: error
            )
        }
        guard !certificates.isEmpty else {
            throw RequestKitError(
                .invalidRequest,
                subject: "trusted certificates",
                reason: "the PEM text holds no certificate"
            )
        }
        var tls = self.tls ?? TLSConfiguration.makeClientConfiguration()
        if includingSystemRoots {
            tls.trustRoots = .default
            tls.additionalTrustRoots.append(.certificates(certificates))
        } else {
            tls.trustRoots = .certificates(certificates)
        }
        self.tls = tls
    }

    /// Trusts the certificate authorities of a PEM file, as ``trustCertificates(pem:includingSystemRoots:)``.
    ///
    /// - Throws: ``RequestKit/RequestKitError/Code/fileSystem`` when the file cannot be read.
    public mutating func trustCertificates(pemFile: URL, includingSystemRoots: Bool = false) throws(RequestKitError) {
        let pem: String
        do {
            pem = try String(contentsOf: pemFile, encoding: .utf8)
        } catch {
            throw RequestKitError(
                .fileSystem,
                subject: pemFile.path,
                reason: "the PEM file cannot be read",
                underlying: error
            )
        }
        try trustCertificates(pem: pem, includingSystemRoots: includingSystemRoots)
    }
}
