import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocatorKit
import Logging
import ModelKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The daemon's store on disk: a corrupt file stops it without being touched, data outlives a daemon, and the
/// generated token file is private and reused.
@Suite("Store and token files")
struct StoreTests {
    static func logger() -> Logger {
        var logger = Logger(label: "fleetd-store-test")
        logger.logLevel = .critical
        return logger
    }

    static func configuration(_ folder: URL) -> FleetConfiguration {
        var configuration = FleetConfiguration(environment: [:])
        configuration.dataDirectory = folder.path
        configuration.port = 0
        configuration.durability = .normal
        return configuration
    }

    @Test("a corrupt database file: run() throws, /health says unavailable, and the file is untouched")
    func corruptDatabase() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = Self.configuration(folder)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let path = URL(fileURLWithPath: configuration.databasePath)
        try garbage.write(to: path)

        let daemon = try FleetDaemon(configuration: configuration, logger: Self.logger(), token: ServerFixture.token)
        await #expect(throws: (any Error).self) {
            try await daemon.run()
        }
        let fleet = try await daemon.locator.resolve(FleetService.self)
        #expect(!fleet.isReady)
        await #expect(throws: FleetError.self) {
            try await fleet.waitUntilReady()
        }

        try await daemon.makeApplication().test(.live) { client async throws in
            let health = try await client.send(.get, "/health", token: nil)
            #expect(health.status == .serviceUnavailable)
            #expect(try health.jsonValue()["status"]?.stringValue == "unavailable")
            let list = try await client.send(.get, "/v2/vehicles", token: nil)
            #expect(list.status == .serviceUnavailable, "\(list.text)")
            #expect(list.headers[.contentType] == Problem.mediaType)
            let create = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "X-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            )
            #expect(create.status == .serviceUnavailable, "\(create.text)")
        }
        #expect(try Data(contentsOf: path) == garbage)
    }

    @Test("vehicles written by one daemon are there for the next one on the same data directory")
    func persistsAcrossDaemons() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try ServerFixture(folder: folder)
        let created = try await first.withServer(keepingFolder: true) { client in
            let kept = try await client.createV2(
                plate: "PER-1",
                maintenance: #"{"due": true, "lastServiced": "2025-03-04T05:06:07Z"}"#
            )
            let deleted = try await client.createV2(plate: "PER-2")
            let patched = try await client.send(
                .patch,
                "/v2/vehicles/\(kept.id.uuidString.lowercased())",
                json: #"{"model": "FH16", "revision": 1}"#
            )
            #expect(patched.status == .ok)
            #expect(
                try await client.send(.delete, "/v2/vehicles/\(deleted.id.uuidString.lowercased())").status
                    == .noContent
            )
            return try patched.decode(V2.Vehicle.self)
        }
        try await first.daemon.locator.resolve(FleetService.self).close()
        #expect(FileManager.default.fileExists(atPath: first.daemon.configuration.databasePath))

        let second = try ServerFixture(folder: folder)
        try await second.withServer(keepingFolder: true) { client in
            let vehicles = try await client.listAllV2().vehicles
            #expect(vehicles == [created])
            #expect(vehicles.first?.revision == 2)
            #expect(vehicles.first?.model == "FH16")
            let v1 = try await client.send(.get, "/v1/vehicles", token: nil).decode([V1.Vehicle].self)
            #expect(v1.map(\.tag) == ["PER-1"])
            // The plate is still taken.
            let duplicate = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "PER-1", "make": "MAN", "model": "TGX", "modelYear": 2015}"#
            )
            #expect(duplicate.status == .conflict)
        }
        try await second.daemon.locator.resolve(FleetService.self).close()
    }

    @Test("without a token the daemon generates a 0600 token file, which a second daemon reuses")
    func generatedTokenFile() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = Self.configuration(folder)
        #expect(!FileManager.default.fileExists(atPath: configuration.tokenFilePath))

        let first = try FleetDaemon(configuration: configuration, logger: Self.logger())
        let attributes = try FileManager.default.attributesOfItem(atPath: configuration.tokenFilePath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let contents = try String(contentsOfFile: configuration.tokenFilePath, encoding: .utf8)
        let token = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 64)
        #expect(token.allSatisfy { $0.isHexDigit })
        #expect(contents == token + "\n")

        let fleet = try await first.locator.resolve(FleetService.self)
        try await fleet.waitUntilReady()
        try await first.makeApplication().test(.live) { client async throws in
            let body = #"{"plate": "TOK-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            #expect(try await client.send(.post, "/v2/vehicles", json: body).status == .unauthorized)
            #expect(try await client.send(.post, "/v2/vehicles", json: body, token: token).status == .created)
        }
        try await fleet.close()

        // A second daemon reads the same token and leaves the file as it was.
        #expect(try FleetDaemon.resolveToken(configuration, logger: Self.logger()) == token)
        let second = try FleetDaemon(configuration: configuration, logger: Self.logger())
        #expect(try String(contentsOfFile: configuration.tokenFilePath, encoding: .utf8) == contents)
        let secondFleet = try await second.locator.resolve(FleetService.self)
        try await secondFleet.waitUntilReady()
        try await second.makeApplication().test(.live) { client async throws in
            let body = #"{"plate": "TOK-2", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            #expect(try await client.send(.post, "/v2/vehicles", json: body, token: token).status == .created)
            #expect(try await client.listAllV2().vehicles.map(\.plate) == ["TOK-1", "TOK-2"])
        }
        try await secondFleet.close()

        // A configured token wins and writes no file.
        var configured = Self.configuration(ServerFixture.makeFolderURL())
        configured.token = "configured-token"
        #expect(try FleetDaemon.resolveToken(configured, logger: Self.logger()) == "configured-token")
        #expect(!FileManager.default.fileExists(atPath: configured.tokenFilePath))
    }
}

/// `FleetDaemon.run()` for real: it listens on the port it reports, serves, and on cancellation stops and
/// closes the store, leaving the data for the next daemon.
@Suite("Running the daemon")
struct DaemonRunTests {
    @Test("run() serves on the reported port and shuts down cleanly when cancelled")
    func runAndCancel() async throws {
        let folder = ServerFixture.makeFolderURL()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = StoreTests.configuration(folder)
        let daemon = try FleetDaemon(
            configuration: configuration,
            logger: StoreTests.logger(),
            token: ServerFixture.token
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let running = Task {
            try await daemon.run { port in continuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(port > 0)

        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/v2/vehicles")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(ServerFixture.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"plate": "RUN-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#.utf8)
        let (_, created) = try await URLSession.shared.data(for: request)
        #expect((created as? HTTPURLResponse)?.statusCode == 201)
        let health = try await URLSession.shared.data(
            from: try #require(URL(string: "http://127.0.0.1:\(port)/health"))
        )
        #expect((health.1 as? HTTPURLResponse)?.statusCode == 200)

        running.cancel()
        if case .failure(let error) = await running.result {
            Issue.record("run() ended with \(error) instead of shutting down cleanly")
        }
        continuation.finish()
        // Closed and flushed: the write-ahead log was checkpointed into the database file.
        let wal = configuration.databasePath + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0
        #expect(walSize == 0)
        let fleet = try await daemon.locator.resolve(FleetService.self)
        await #expect(throws: FleetError.self) {
            _ = try await fleet.list(VehicleFilter(), after: nil, limit: nil)
        }

        let next = try ServerFixture(folder: folder)
        try await next.withServer(keepingFolder: true) { client async throws in
            #expect(try await client.listAllV2().vehicles.map(\.plate) == ["RUN-1"])
        }
        try await next.daemon.locator.resolve(FleetService.self).close()
    }
}
