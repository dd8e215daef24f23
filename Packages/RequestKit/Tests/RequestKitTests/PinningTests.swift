import Foundation
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct PinningTests {
    /// Runs `body` against an HTTPS test server with a transport trusting the test authority and pinning `pins`.
    private func withPinnedClient(
        pins: (TestCertificateAuthority) -> [PinningPolicy.Pin],
        _ body: (RequestClient, TestServer) async throws -> Void
    ) async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        try await TestServer.withTestServer(
            tls: try authority.serverTLSConfiguration(),
            handler: { _ in .text("secret")
            }
        ) { server in
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.tls = try authority.clientTLSConfiguration()
            let pinList = pins(authority)
            if !pinList.isEmpty {
                try configuration.pinning.pin("localhost", pinList)
            }
            try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport in
                let environment = try ServiceEnvironment(name: "tls", baseURL: server.baseURL)
                try await body(RequestClient(environment: environment, transport: transport), server)
            }
        }
    }

    @Test func httpsWorksWithATrustedCertificateAndNoPins() async throws {
        try await withPinnedClient(pins: { _ in [] }) { client, server in
            let value = try await client.get("x").value.text
            #expect(value == "secret")
            #expect(server.scheme == "https")
        }
    }

    @Test func aMatchingPublicKeyPinLetsTheRequestThrough() async throws {
        try await withPinnedClient(pins: { [.publicKey(sha256: $0.serverPublicKeySHA256)] }) { client, _ in
            let value = try await client.get("x").value.text
            #expect(value == "secret")
        }
    }

    @Test func aMatchingCertificatePinLetsTheRequestThrough() async throws {
        try await withPinnedClient(pins: { [.certificate(sha256: $0.serverCertificateSHA256)] }) { client, _ in
            let value = try await client.get("x").value.text
            #expect(value == "secret")
        }
    }

    @Test func aBackupPinMatchesWhenThePrimaryDoesNot() async throws {
        try await withPinnedClient(pins: {
            [.publicKey(sha256: $0.unrelatedPublicKeySHA256), .publicKey(sha256: $0.serverPublicKeySHA256)]
        }) { client, _ in
            let value = try await client.get("x").value.text
            #expect(value == "secret")
        }
    }

    @Test func aWrongPinFailsFastAndNoRequestReachesTheServer() async throws {
        // How fast it fails is measured by the "wrong pin fails" benchmark; here the evidence is structural.
        try await withPinnedClient(pins: { [.publicKey(sha256: $0.unrelatedPublicKeySHA256)] }) { client, server in
            let error = await #expect(throws: RequestKitError.self) {
                _ = try await client.get("x")
            }
            // The pin check rejected the certificate the handshake delivered: not a timeout (connect 10 s,
            // request 60 s), not a failed handshake.
            #expect(error?.code == .pinningFailed)
            #expect(error?.reason.contains("matches none of its pins") == true, "\(String(describing: error))")
            // One connection, so one handshake: a failed pin is final and the connection is not retried.
            #expect(server.acceptedConnections == 1)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aPinnedHostIsRefusedOverPlainHTTP() async throws {
        try await TestServer.withTestServer(handler: { _ in .text("plain") }) { server in
            var configuration = AsyncHTTPClientTransport.Configuration()
            try configuration.pinning.pin("127.0.0.1", [.publicKey(sha256: Array(repeating: 1, count: 32))])
            try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport in
                let client = RequestClient(
                    environment: try ServiceEnvironment(name: "plain", baseURL: server.baseURL),
                    transport: transport
                )
                await #expect {
                    _ = try await client.get("x")
                } throws: { error in
                    (error as? RequestKitError)?.code == .pinningFailed
                }
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
