import Foundation
import HTTPTypes
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// `Timeouts.perAttempt` and `Timeouts.overall` run to the last byte of the body on every path, not only to the
/// response head: a server that stalls mid-body fails the call when they run out, long before the transport's read
/// timeout.
struct BodyTimeoutTests {
    private static let stall: TestServer.Handler = { _ in
        TestResponse(
            status: 200,
            headers: [("Content-Type", "application/json")],
            body: .stall(prefix: Data("[{\"plate\":".utf8), declaredLength: 10_000)
        )
    }

    struct Vehicle: Decodable, Sendable {
        var plate: String
    }

    enum Path: String, CaseIterable, Sendable {
        case oneCall, builder, endpoint, download, collect
    }

    /// A transport whose own read timeout is far longer than the test waits.
    private static var patientTransport: AsyncHTTPClientTransport.Configuration {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.readTimeout = .seconds(60)
        return configuration
    }

    private static func run(_ path: Path, _ client: RequestClient, _ timeouts: Timeouts) async throws {
        switch path {
        case .oneCall:
            // One-call requests take the client's timeouts.
            _ = try await client.get("vehicles", as: [Vehicle].self)
        case .builder:
            _ = try await client.makeRequest(.get, "vehicles").timeouts(timeouts).submit()
        case .endpoint:
            _ = try await client.send(Endpoint(.get, "vehicles", as: [Vehicle].self).timeouts(timeouts))
        case .download:
            // Downloads take the client's timeouts.
            let folder = FileManager.default.temporaryDirectory.appending(path: "rk-timeout-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try await client.download("vehicles", to: folder.appending(path: "v.json"))
        case .collect:
            let response = try await client.send(
                ClientRequest(
                    method: .get,
                    url: client.environment.currentEnvironment.baseURL.appending(path: "vehicles"),
                    timeouts: timeouts
                )
            )
            _ = try await response.body.collect(upTo: 1 << 20)
        }
    }

    @Test(arguments: Path.allCases)
    func thePerAttemptTimeoutCoversTheBody(path: Path) async throws {
        try await expectTimedOut(path, Timeouts(perAttempt: .milliseconds(400)))
    }

    @Test(arguments: [Path.oneCall, .builder, .endpoint, .download])
    func theOverallTimeoutCoversTheBody(path: Path) async throws {
        try await expectTimedOut(path, Timeouts(overall: .milliseconds(400)))
    }

    /// Runs `path` against the stalling server with `timeouts` set on the client and the request, and expects
    /// `timedOut` from those timeouts, not from the transport's read timeout (whose error says the server stopped
    /// sending).
    private func expectTimedOut(_ path: Path, _ timeouts: Timeouts) async throws {
        var configuration = RequestClient.Configuration()
        configuration.timeouts = timeouts
        try await withClient(
            configuration: configuration,
            transportConfiguration: Self.patientTransport,
            handler: Self.stall
        ) { client, _ in
            let error = await #expect(throws: RequestKitError.self) {
                try await Self.run(path, client, timeouts)
            }
            #expect(error?.code == .timedOut)
            #expect(error?.reason != Self.readTimeoutReason, "the transport's read timeout ended the call")
        }
    }

    /// What the transport's error says when its own read timeout ends a transfer.
    private static let readTimeoutReason = "the server stopped sending"

    @Test func aBodyThatKeepsComingWithinTheTimeoutIsNotCutShort() async throws {
        let body = Data(repeating: 7, count: 4 << 20)
        try await withClient(handler: { _ in TestResponse(status: 200, body: .data(body)) }) { client, _ in
            let response = try await client.makeRequest(.get, "big")
                .timeouts(Timeouts(perAttempt: .seconds(30)))
                .submit()
            guard case .data(let bytes) = response.value else {
                Issue.record("expected bytes")
                return
            }
            #expect(bytes == body)
        }
    }
}
