import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocatorKit
import Logging
import ModelKit
import NIOCore

/// A daemon on a fresh data directory, served on a free loopback port for the duration of a test.
struct ServerFixture {
    static let token = "fleet-test-token"
    let folder: URL
    let daemon: FleetDaemon

    init(maximumBodyBytes: Int = 64 * 1024, maintenanceIntervalMonths: Int = 12) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-test-\(UUID().uuidString)")
        var configuration = FleetConfiguration(environment: [:])
        configuration.dataDirectory = folder.path
        configuration.port = 0
        configuration.maximumBodyBytes = maximumBodyBytes
        configuration.maintenanceIntervalMonths = maintenanceIntervalMonths
        configuration.durability = .normal
        var logger = Logger(label: "fleetd-test")
        logger.logLevel = .warning
        daemon = try FleetDaemon(configuration: configuration, logger: logger, token: Self.token)
    }

    /// Runs `body` against the daemon on a real loopback socket.
    func withServer<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        defer { try? FileManager.default.removeItem(at: folder) }
        let fleet = try await daemon.locator.resolve(FleetService.self)
        try await fleet.waitUntilReady()
        return try await daemon.makeApplication().test(.live, body)
    }
}

extension TestClientProtocol {
    /// Sends a request, with a JSON body and the bearer token when asked.
    func send(
        _ method: HTTPRequest.Method,
        _ uri: String,
        json: String? = nil,
        token: String? = ServerFixture.token,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await executeRequest(
            uri: uri,
            method: method,
            headers: headers,
            body: json.map { ByteBuffer(string: $0) }
        )
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    func jsonValue() throws -> JSONValue {
        try JSONValue(parsing: Array(body.readableBytesView))
    }

    /// A string member of the JSON body.
    func string(_ key: String) throws -> String? {
        if case .string(let text) = try jsonValue()[key] { return text }
        return nil
    }
}
