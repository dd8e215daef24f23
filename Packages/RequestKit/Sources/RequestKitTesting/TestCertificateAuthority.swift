public import Foundation
public import NIOSSL
import ProcessTesting

/// A throwaway certificate authority and a `localhost` server certificate for HTTPS tests, made with the
/// `openssl` command-line tool in a temporary folder.
///
/// The server certificate is valid for `localhost` and `127.0.0.1`. Digests for pinning tests are computed by
/// `openssl` too, independently of RequestKit's own pin checks.
public struct TestCertificateAuthority: Sendable {
    /// The folder holding the PEM files.
    public let directory: URL
    /// SHA-256 of the server certificate's DER bytes.
    public let serverCertificateSHA256: [UInt8]
    /// SHA-256 of the server certificate's SubjectPublicKeyInfo.
    public let serverPublicKeySHA256: [UInt8]
    /// SHA-256 of the SubjectPublicKeyInfo of another key that signs nothing here (a wrong pin).
    public let unrelatedPublicKeySHA256: [UInt8]
    /// The authority's own certificate in PEM, to trust it without NIOSSL (for example with
    /// `AsyncHTTPClientTransport.Configuration.trustCertificates(pem:)`).
    public let certificatePEM: String

    /// Makes a new authority and server certificate.
    ///
    /// - Parameters:
    ///   - serverNames: the host names and IP addresses the server certificate is valid for.
    ///   - expired: whether the server certificate's validity ended in 2020, to test a refused certificate.
    /// - Throws: when `openssl` is missing or fails.
    public init(serverNames: [String] = ["localhost", "127.0.0.1"], expired: Bool = false) throws {
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "requestkit-ca-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let alternativeNames = serverNames.map { name in
            name.allSatisfy { $0.isNumber || $0 == "." } || name.contains(":") ? "IP:\(name)" : "DNS:\(name)"
        }
        .joined(separator: ",")
        // `openssl ca` can date a certificate in the past; `openssl x509 -req` cannot.
        let signing =
            expired
            ? """
            printf '[ca]\\ndefault_ca=d\\n[d]\\ndatabase=index.txt\\nnew_certs_dir=.\\nserial=serial\\n' > ca.cnf
            printf 'default_md=sha256\\npolicy=p\\n[p]\\ncommonName=supplied\\n' >> ca.cnf
            touch index.txt
            echo 01 > serial
            openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in server.csr -out server.pem -notext \
                -startdate 20200101000000Z -enddate 20200102000000Z -extfile ext.cnf 2>/dev/null
            """
            : """
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
                -extfile ext.cnf 2>/dev/null
            """
        let script = """
            set -e
            cd "$1"
            curve="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
            openssl req -x509 $curve -keyout ca.key -out ca.pem -days 2 -subj "/CN=RequestKit Test CA" 2>/dev/null
            openssl req $curve -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
            printf 'subjectAltName=\(alternativeNames)\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' \
                > ext.cnf
            \(signing)
            openssl req $curve -keyout other.key -out other.csr -subj "/CN=other" 2>/dev/null
            openssl x509 -in server.pem -outform DER | openssl dgst -sha256 -binary > server.cert.sha256
            openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform DER \
                | openssl dgst -sha256 -binary > server.spki.sha256
            openssl pkey -in other.key -pubout -outform DER | openssl dgst -sha256 -binary > other.spki.sha256
            """
        let result = try ChildProcess.run("/bin/sh", arguments: ["-c", script, "sh", directory.path], error: .collect)
        guard result.termination.succeeded else {
            throw TestServerError(reason: "openssl failed (\(result.termination)): \(result.errorText)")
        }
        self.directory = directory
        serverCertificateSHA256 = Array(try Data(contentsOf: directory.appending(path: "server.cert.sha256")))
        serverPublicKeySHA256 = Array(try Data(contentsOf: directory.appending(path: "server.spki.sha256")))
        unrelatedPublicKeySHA256 = Array(try Data(contentsOf: directory.appending(path: "other.spki.sha256")))
        certificatePEM = try String(contentsOf: directory.appending(path: "ca.pem"), encoding: .utf8)
    }

    /// The TLS configuration of a ``TestServer`` presenting the `localhost` certificate.
    public func serverTLSConfiguration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(directory.appending(path: "server.pem").path)
        let key = try NIOSSLPrivateKey(file: directory.appending(path: "server.key").path, format: .pem)
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
    }

    /// A client TLS configuration trusting only this authority.
    public func clientTLSConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(
            try NIOSSLCertificate.fromPEMFile(directory.appending(path: "ca.pem").path)
        )
        return configuration
    }

    /// Deletes the PEM files.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
