public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
public import NIOSSL
import Synchronization

/// An in-process HTTP/1.1 server on loopback for tests: answers every request through a handler closure.
///
/// Start one with ``withTestServer(tls:maximumRecordedBodySize:handler:_:)``, which always shuts it down. The server records every request
/// it received, and counts the connections it accepted, so tests can assert what reached it.
///
/// ```swift
/// try await TestServer.withTestServer(handler: { request in
///     .json(#"{"id": 1}"#)
/// }) { server in
///     let client = RequestClient(environment: server.environment, transport: transport)
///     _ = try await client.get("vehicles/1")
/// }
/// ```
public final class TestServer: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (TestRequest) async -> TestResponse

    /// The port the server listens on, on `127.0.0.1`.
    public let port: Int
    /// `http` or `https`.
    public let scheme: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let log: TestServerLog

    private init(
        port: Int,
        scheme: String,
        channel: any Channel,
        group: MultiThreadedEventLoopGroup,
        log: TestServerLog
    ) {
        self.port = port
        self.scheme = scheme
        self.channel = channel
        self.group = group
        self.log = log
    }

    /// `http://127.0.0.1:<port>/` (or `https://localhost:<port>/` with TLS, matching the test certificate).
    public var baseURL: URL {
        // The URL is built from a number and a fixed host, so it always parses.
        URL(string: scheme == "https" ? "https://localhost:\(port)/" : "http://127.0.0.1:\(port)/")
            ?? URL(fileURLWithPath: "/")
    }

    /// Every request received so far, in order of arrival.
    public var receivedRequests: [TestRequest] { log.requests }

    /// How many connections the server has accepted.
    public var acceptedConnections: Int { log.connections }

    /// Starts a server on an ephemeral loopback port, runs `body`, and shuts the server down.
    ///
    /// - Parameters:
    ///   - tls: a TLS configuration for HTTPS, or `nil` for plain HTTP.
    ///   - handler: answers each request.
    ///   - maximumRecordedBodySize: request body bytes kept in ``TestRequest/body``; the rest is counted in
    ///     ``TestRequest/bodyLength`` and dropped, so large uploads do not grow memory.
    public static func withTestServer<Result>(
        tls: TLSConfiguration? = nil,
        maximumRecordedBodySize: Int = 64 * 1024 * 1024,
        handler: @escaping Handler,
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(tls: tls, maximumRecordedBodySize: maximumRecordedBodySize, handler: handler)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// Starts a server. Prefer ``withTestServer(tls:maximumRecordedBodySize:handler:_:)``; a started server must be shut down.
    ///
    /// - Parameter port: the loopback port to listen on, or `0` (the default) for an ephemeral one. A fixed port lets
    ///   a test start a server where a client already failed to connect (a server coming up).
    public static func start(
        tls: TLSConfiguration? = nil,
        port: Int = 0,
        maximumRecordedBodySize: Int = 64 * 1024 * 1024,
        handler: @escaping Handler
    ) async throws -> TestServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = TestServerLog()
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                log.connectionAccepted()
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        TestServerHandler(handler: handler, log: log, bodyLimit: maximumRecordedBodySize)
                    )
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
            guard let port = channel.localAddress?.port else {
                try await channel.close()
                throw TestServerError(reason: "the server has no local port")
            }
            return TestServer(
                port: port,
                scheme: tls == nil ? "http" : "https",
                channel: channel,
                group: group,
                log: log
            )
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listening socket and every connection, and stops the server's thread.
    public func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// The test server could not start.
struct TestServerError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "test server: \(reason)" }
}

/// What the server received, shared between its connections.
final class TestServerLog: Sendable {
    private struct State {
        var requests: [TestRequest] = []
        var connections = 0
    }
    private let state = Mutex(State())

    var requests: [TestRequest] { state.withLock { $0.requests } }
    var connections: Int { state.withLock { $0.connections } }

    func connectionAccepted() { state.withLock { $0.connections += 1 } }
    func record(_ request: TestRequest) { state.withLock { $0.requests.append(request) } }
}
