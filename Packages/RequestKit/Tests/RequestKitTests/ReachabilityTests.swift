import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

struct ReachabilityTests {
    @Test func theMonitorReportsALiveHostAsReachableAndAStoppedOneAsUnreachable() async throws {
        let server = try await TestServer.start(handler: { _ in .status(200) })
        let environment = try ServiceEnvironment(name: "live", baseURL: server.baseURL)
        let monitor = HostReachabilityMonitor(environment: environment)
        var updates = monitor.updates().makeAsyncIterator()
        #expect(await updates.next() == .unknown)
        #expect(await monitor.refresh() == .reachable)
        #expect(await updates.next() == .reachable)
        try await server.shutdown()
        let status = await monitor.refresh()
        #expect(status.isUnreachable)
        #expect(await updates.next() == status)
    }

    @Test func requestsFailFastWhileTheHostIsUnreachableAndGoThroughOnceItIsBack() async throws {
        let port = try closedLoopbackPort()
        try await TestServer.withTestServer(handler: { _ in .text("up") }) { server in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let environments = try EnvironmentService(
                    [
                        ServiceEnvironment(name: "down", baseURL: "http://127.0.0.1:\(port)/"),
                        ServiceEnvironment(name: "up", baseURL: server.baseURL),
                    ],
                    current: "down"
                )
                let monitor = HostReachabilityMonitor(environment: environments)
                var configuration = RequestClient.Configuration()
                configuration.reachability = monitor
                let client = RequestClient(
                    environment: environments,
                    transport: transport,
                    configuration: configuration
                )
                #expect(await monitor.refresh().isUnreachable)
                await #expect {
                    _ = try await client.get("x")
                } throws: { error in
                    (error as? RequestKitError)?.code == .offline
                }
                try environments.switchTo("up")
                #expect(await monitor.refresh() == .reachable)
                let text = try await client.get("x").value.text
                #expect(text == "up")
            }
        }
    }
}

struct ConnectionRefusedTests {
    @Test func withoutRetriesARefusedConnectionIsItsOwnErrorCode() async throws {
        let server = try await TestServer.start(handler: { _ in .status(200) })
        let port = server.port
        try await server.shutdown()
        var settings = AsyncHTTPClientTransport.Configuration()
        settings.retriesConnectionEstablishment = false
        try await AsyncHTTPClientTransport.withTransport(configuration: settings) { transport in
            let environment = try ServiceEnvironment(name: "down", baseURL: "http://127.0.0.1:\(port)/")
            let client = RequestClient(environment: environment, transport: transport)
            let error = await #expect(throws: RequestKitError.self) { try await client.get("health") }
            #expect(error?.code == .connectionRefused)
            #expect(error?.url?.port == port)
        }
    }
}
