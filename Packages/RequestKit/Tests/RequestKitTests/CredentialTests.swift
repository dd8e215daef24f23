import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct CredentialTests {
    static let authorizationEcho: TestServer.Handler = { request in .text(request.header("authorization") ?? "") }

    @Test func basicAuthorizationSendsEncodedCredentials() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware.append(RequestDecorator.basicAuthorization(username: "fleet", password: "pä:ss"))
        try await withClient(configuration: configuration, handler: Self.authorizationEcho) { client, _ in
            let sent = try await client.get("x").value.text
            #expect(sent == "Basic " + Data("fleet:pä:ss".utf8).base64EncodedString())
        }
    }

    @Test func aUserNameWithAColonIsRefusedBeforeSending() async throws {
        try await withClient(handler: Self.authorizationEcho) { client, server in
            let endpoint = Endpoint(.get, "x").basicAuthorization(username: "a:b", password: "c")
            let error = await #expect(throws: RequestKitError.self) { _ = try await client.send(endpoint) }
            #expect(error?.code == .invalidRequest)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func bearerTokensAreSentFixedOrAskedForEachRequest() async throws {
        let counter = LockedValue(0)
        var configuration = RequestClient.Configuration()
        configuration.middleware.append(
            RequestDecorator.bearerToken {
                counter.update { $0 += 1 }; return "token-\(counter.value)"
            }
        )
        try await withClient(configuration: configuration, handler: Self.authorizationEcho) { client, _ in
            let first = try await client.get("x").value.text
            let second = try await client.get("x").value.text
            // The endpoint's decorator runs after the client's middleware, so its token wins.
            let fixed = try await client.send(Endpoint(.get, "x").bearerToken("fixed")).text
            #expect(first == "Bearer token-1")
            #expect(second == "Bearer token-2")
            #expect(fixed == "Bearer fixed")
        }
    }

    @Test func aFailingTokenProviderRefusesTheRequest() async throws {
        struct SignedOut: Error {}
        var configuration = RequestClient.Configuration()
        configuration.middleware.append(RequestDecorator.bearerToken { throw SignedOut() })
        try await withClient(configuration: configuration, handler: Self.authorizationEcho) { client, server in
            let error = await #expect(throws: RequestKitError.self) { _ = try await client.get("x") }
            #expect(error?.code == .refused)
            #expect(server.receivedRequests.isEmpty)
        }
    }
}

struct TrustedCertificateTests {
    @Test func aTransportTrustsAPrivateCertificateAuthorityFromPEM() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        for includingSystemRoots in [false, true] {
            var transportConfiguration = AsyncHTTPClientTransport.Configuration()
            try transportConfiguration.trustCertificates(
                pem: authority.certificatePEM,
                includingSystemRoots: includingSystemRoots
            )
            try await TestServer.withTestServer(
                tls: try authority.serverTLSConfiguration(),
                handler: { _ in .json(#"{"ok": true}"#) }
            ) { server in
                try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) { transport in
                    let client = RequestClient(
                        environment: try ServiceEnvironment(name: "tls", baseURL: server.baseURL),
                        transport: transport
                    )
                    #expect(server.baseURL.scheme == "https")
                    #expect(try await client.get("x").value.json == ["ok": true])
                }
            }
        }
    }

    @Test func withoutTheAuthorityTheServerIsNotTrusted() async throws {
        let authority = try TestCertificateAuthority()
        let other = try TestCertificateAuthority()
        defer {
            authority.remove()
            other.remove()
        }
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.retriesConnectionEstablishment = false
        try transportConfiguration.trustCertificates(pem: other.certificatePEM)
        try await TestServer.withTestServer(tls: try authority.serverTLSConfiguration(), handler: { _ in .status(200) })
        { server in
            try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) { transport in
                let client = RequestClient(
                    environment: try ServiceEnvironment(name: "tls", baseURL: server.baseURL),
                    transport: transport
                )
                let error = await #expect(throws: RequestKitError.self) { _ = try await client.get("x") }
                #expect(error?.code == .tlsVerificationFailed)
                #expect((error?.underlying as? TLSVerificationError)?.code == .untrustedIssuer)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test(arguments: ["", "not a certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"])
    func textThatIsNoCertificateIsRefused(pem: String) {
        var configuration = AsyncHTTPClientTransport.Configuration()
        let error = #expect(throws: RequestKitError.self) { try configuration.trustCertificates(pem: pem) }
        #expect(error?.code == .invalidRequest)
        #expect(configuration.tls == nil)
    }
}
