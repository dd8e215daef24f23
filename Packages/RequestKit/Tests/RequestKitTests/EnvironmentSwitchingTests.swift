import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct EnvironmentSwitchingTests {
    @Test func aSwitchSendsLaterRequestsToTheNewEnvironmentAndIsStreamed() async throws {
        try await TestServer.withTestServer(handler: { _ in .text("A") }) { serverA in
            try await TestServer.withTestServer(handler: { _ in .text("B") }) { serverB in
                try await AsyncHTTPClientTransport.withTransport { transport in
                    let environments = try EnvironmentService(
                        [
                            ServiceEnvironment(name: "a", baseURL: serverA.baseURL),
                            ServiceEnvironment(name: "b", baseURL: serverB.baseURL),
                        ],
                        current: "a"
                    )
                    let changes = environments.changes()
                    let client = RequestClient(environment: environments, transport: transport)
                    let value1 = try await client.get("x").value.text
                    #expect(value1 == "A")
                    try environments.switchTo("b")
                    let value2 = try await client.get("x").value.text
                    #expect(value2 == "B")
                    var iterator = changes.makeAsyncIterator()
                    #expect(await iterator.next()?.name == "b")
                }
            }
        }
    }

    @Test func switchingToAnUnknownNameIsATypedError() throws {
        let environments = try EnvironmentService(
            [ServiceEnvironment(name: "a", baseURL: "http://127.0.0.1:1/")],
            current: "a"
        )
        #expect {
            try environments.switchTo("nope")
        } throws: { error in
            (error as? RequestKitError)?.code == .invalidEnvironment
        }
    }

    @Test func theCancelPolicyCancelsRequestsInFlightOnASwitch() async throws {
        let arrived = Signal()
        let stall: TestServer.Handler = { _ in
            arrived.fire()
            return TestResponse(status: 200, body: .stall(prefix: Data(), declaredLength: 10))
        }
        try await TestServer.withTestServer(handler: stall) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environments = try EnvironmentService(
                    [
                        ServiceEnvironment(name: "a", baseURL: server.baseURL),
                        ServiceEnvironment(name: "b", baseURL: "http://127.0.0.1:1/"),
                    ],
                    current: "a"
                )
                var configuration = RequestClient.Configuration()
                configuration.inFlightPolicy = .cancel
                let client = RequestClient(
                    environment: environments,
                    transport: transport,
                    configuration: configuration
                )
                let task = Task { try await client.get("x") }
                await arrived.wait()
                try environments.switchTo("b")
                await #expect {
                    _ = try await task.value
                } throws: { error in
                    guard let error = error as? RequestKitError else { return false }
                    return error.code == .cancelled && error.reason.contains("switched to b")
                }
            }
        }
    }

    @Test func theFinishPolicyLetsRequestsInFlightComplete() async throws {
        let arrived = Signal()
        let release = Signal()
        let gated: TestServer.Handler = { _ in
            arrived.fire()
            await release.wait()
            return .text("from a")
        }
        try await TestServer.withTestServer(handler: gated) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environments = try EnvironmentService(
                    [
                        ServiceEnvironment(name: "a", baseURL: server.baseURL),
                        ServiceEnvironment(name: "b", baseURL: "http://127.0.0.1:1/"),
                    ],
                    current: "a"
                )
                let client = RequestClient(environment: environments, transport: transport)
                let task = Task { try await client.get("x") }
                await arrived.wait()
                try environments.switchTo("b")
                release.fire()
                let value3 = try await task.value.value.text
                #expect(value3 == "from a")
            }
        }
    }
}
