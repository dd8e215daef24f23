import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import LocatorKit
import Logging
import ModelKit
import NIOCore
import Testing

/// A daemon on a fresh data directory, served on a free loopback port for the duration of a test.
struct ServerFixture {
    static let token = "fleet-test-token"
    let folder: URL
    let daemon: FleetDaemon

    init(
        folder: URL? = nil,
        maximumBodyBytes: Int = 64 * 1024,
        maintenanceIntervalMonths: Int = 12,
        readCacheBytes: Int? = nil,
        logs: InMemoryLogHandler? = nil,
        logLevel: Logger.Level = .warning,
        configure: (inout FleetConfiguration) -> Void = { _ in }
    ) throws {
        self.folder = folder ?? Self.makeFolderURL()
        var configuration = FleetConfiguration(environment: [:])
        configuration.dataDirectory = self.folder.path
        configuration.port = 0
        configuration.maximumBodyBytes = maximumBodyBytes
        configuration.maintenanceIntervalMonths = maintenanceIntervalMonths
        configuration.durability = .normal
        if let readCacheBytes { configuration.readCacheBytes = readCacheBytes }
        configure(&configuration)
        var logger =
            logs.map { handler in Logger(label: "fleetd-test") { _ in handler } } ?? Logger(label: "fleetd-test")
        logger.logLevel = logLevel
        daemon = try FleetDaemon(configuration: configuration, logger: logger, token: Self.token)
    }

    /// A fresh, not yet created, temporary directory.
    static func makeFolderURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-test-\(UUID().uuidString)")
    }

    /// Runs `body` against the daemon on a real loopback socket; removes the data directory afterwards unless
    /// `keepingFolder` (for a second daemon on the same data).
    func withServer<T: Sendable>(
        keepingFolder: Bool = false,
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        defer { if !keepingFolder { try? FileManager.default.removeItem(at: folder) } }
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

    /// The problem body of an error response.
    func problem() throws -> Problem {
        try ModelCoding.decode(Problem.self, from: Data(body.readableBytesView))
    }

    /// The body decoded as `type` with the models' coding.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ModelCoding.decode(type, from: Data(body.readableBytesView))
    }

    /// A string member of the JSON body.
    func string(_ key: String) throws -> String? {
        if case .string(let text) = try jsonValue()[key] { return text }
        return nil
    }
}

extension TestClientProtocol {
    /// Creates a vehicle through v2 and returns it as the daemon answered; fails the test unless it is a 201.
    func createV2(
        plate: String,
        make: String = "Volvo",
        model: String = "FH",
        modelYear: Int = 2020,
        maintenance: String? = nil
    ) async throws -> V2.Vehicle {
        var members = [
            #""plate": "\#(plate)""#, #""make": "\#(make)""#, #""model": "\#(model)""#, #""modelYear": \#(modelYear)"#,
        ]
        if let maintenance { members.append(#""maintenance": \#(maintenance)"#) }
        let response = try await send(.post, "/v2/vehicles", json: "{" + members.joined(separator: ", ") + "}")
        try #require(response.status == .created, "\(response.status): \(response.text)")
        return try response.decode(V2.Vehicle.self)
    }

    /// Every page of `GET /v2/vehicles?<query>`, following `nextCursor`, with the number of pages.
    func listAllV2(_ query: String = "") async throws -> (vehicles: [V2.Vehicle], pages: Int) {
        var vehicles: [V2.Vehicle] = []
        var cursor: String?
        var pages = 0
        repeat {
            var parts = query.isEmpty ? [] : [query]
            if let cursor { parts.append("cursor=\(cursor)") }
            let uri = "/v2/vehicles" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
            let response = try await send(.get, uri, token: nil)
            try #require(response.status == .ok, "\(uri): \(response.status) \(response.text)")
            let page = try response.decode(V2.VehiclePage.self)
            vehicles += page.items
            cursor = page.nextCursor
            pages += 1
            try #require(pages <= 100, "the cursor never ends")
        } while cursor != nil
        return (vehicles, pages)
    }
}
