import Foundation
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// A certificate that fails verification fails the request at once, with the check that failed, and nothing is sent.
struct TLSVerificationTests {
    /// Runs a request from a transport that trusts `trusted` (or the system's roots) to an HTTPS test server
    /// presenting `presented`'s certificate, and returns the error and how long the request took.
    private func failure(
        presented: TestCertificateAuthority,
        trusted: TestCertificateAuthority?,
        host: String = "localhost"
    ) async throws -> (RequestKitError?, Duration, [TestRequest], connections: Int) {
        var configuration = AsyncHTTPClientTransport.Configuration()
        if let trusted { configuration.tls = try trusted.clientTLSConfiguration() }
        // Refused connections are retried (the default) for as long as 30 s: a retried certificate failure would
        // take that long and open a connection every few hundred milliseconds.
        #expect(configuration.retriesConnectionEstablishment)
        configuration.connectTimeout = .seconds(30)
        return try await TestServer.withTestServer(
            tls: try presented.serverTLSConfiguration(),
            handler: TestServer.echo
        ) {
            server in
            try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport in
                let environment = try ServiceEnvironment(name: "tls", baseURL: "https://\(host):\(server.port)/")
                let client = RequestClient(environment: environment, transport: transport)
                let start = ContinuousClock.now
                do {
                    _ = try await client.get("vehicles")
                    return (nil, ContinuousClock.now - start, server.receivedRequests, server.acceptedConnections)
                } catch {
                    let elapsed = ContinuousClock.now - start
                    return (error as? RequestKitError, elapsed, server.receivedRequests, server.acceptedConnections)
                }
            }
        }
    }

    private func check(of error: RequestKitError?) -> TLSVerificationError.Code? {
        (error?.underlying as? TLSVerificationError)?.code
    }

    @Test func anUnknownAuthorityFailsAtOnceAsUntrustedIssuer() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        // The system's trust store knows nothing of the test authority.
        let (error, elapsed, received, connections) = try await failure(presented: authority, trusted: nil)
        #expect(error?.code == .tlsVerificationFailed)
        #expect(check(of: error) == .untrustedIssuer)
        #expect(elapsed < .seconds(15))
        #expect(connections <= 2)
        #expect(received.isEmpty)
    }

    @Test func anExpiredCertificateIsNamedAsExpired() async throws {
        let authority = try TestCertificateAuthority(expired: true)
        defer { authority.remove() }
        let (error, elapsed, received, connections) = try await failure(presented: authority, trusted: authority)
        #expect(error?.code == .tlsVerificationFailed)
        #expect(check(of: error) == .expired)
        #expect(elapsed < .seconds(15))
        #expect(connections <= 2)
        #expect(received.isEmpty)
    }

    @Test func aCertificateForAnotherNameIsAHostnameMismatch() async throws {
        let authority = try TestCertificateAuthority(serverNames: ["other.example"])
        defer { authority.remove() }
        let (error, elapsed, received, connections) = try await failure(presented: authority, trusted: authority)
        #expect(error?.code == .tlsVerificationFailed)
        #expect(check(of: error) == .hostnameMismatch)
        #expect(elapsed < .seconds(15))
        #expect(connections <= 2)
        #expect(received.isEmpty)
    }

    @Test func aTrustedCertificateStillWorks() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let (error, _, received, _) = try await failure(presented: authority, trusted: authority)
        #expect(error == nil)
        #expect(received.count == 1)
    }
}
