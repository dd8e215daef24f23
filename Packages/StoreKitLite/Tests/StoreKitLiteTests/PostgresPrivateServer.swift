import Foundation
import Logging
import ModelKitTesting
import PostgresNIO
import ProcessTesting
import StoreKitLite
import StoreKitLitePostgres
import Testing

/// A PostgreSQL server of one test's own, started and stopped with `Scripts/postgres` (a throwaway cluster in a
/// temporary folder, on a free loopback port), for tests that restart the server or end its sessions: they must
/// never disturb the tests sharing the server of `STOREKITLITE_POSTGRES_URL`.
struct PostgresPrivateServer: Sendable {
    /// The server's URL.
    let url: String
    /// The folder `Scripts/postgres` made for it.
    let folder: String

    /// `Scripts/postgres` in this repository.
    static let script = URL(filePath: #filePath)
        .deletingLastPathComponent()  // StoreKitLiteTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // StoreKitLite
        .deletingLastPathComponent()  // Packages
        .deletingLastPathComponent()  // the repository
        .appending(path: "Scripts/postgres")

    /// Starts a server, runs `body` with it, and stops the server and removes its folder, whatever `body` does.
    static func with<T: Sendable>(_ body: (PostgresPrivateServer) async throws -> T) async throws -> T {
        let lines = try await run(["start"]).split(separator: "\n").map(String.init)
        let server = try #require(lines.count >= 2 ? PostgresPrivateServer(url: lines[0], folder: lines[1]) : nil)
        do {
            let result = try await body(server)
            _ = try await run(["stop", server.folder])
            return result
        } catch {
            _ = try? await run(["stop", server.folder])
            throw error
        }
    }

    /// Restarts the server (a fast shutdown: its sessions are ended), on the same port.
    func restart() async throws {
        _ = try await Self.run(["restart", folder])
    }

    /// The backend configuration for this server, in `schema`.
    func configuration(schema: String) throws -> PostgresBackend.Configuration {
        var configuration = try PostgresBackend.Configuration(url: url)
        configuration.schema = schema
        return configuration
    }

    /// One plain connection to the server, outside any backend (the caller closes it).
    func connect() async throws -> PostgresConnection {
        let configuration = try self.configuration(schema: "public")
        return try await PostgresConnection.connect(
            configuration: .init(
                host: configuration.host,
                port: configuration.port,
                username: configuration.username,
                password: configuration.password,
                database: configuration.database,
                tls: .disable
            ),
            id: 1,
            logger: Self.logger
        )
    }

    static let logger = Logger(label: "postgres-private-server", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `Scripts/postgres` with `arguments`; returns what it printed, or fails with what it said. Its output
    /// goes to files, not pipes: the server it starts may keep inherited descriptors open, and a pipe would then
    /// never reach its end.
    private static func run(_ arguments: [String]) async throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "pg-script-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appending(path: "out")
        let errorFile = folder.appending(path: "err")
        let child = try ChildProcess(
            script.path,
            arguments: arguments,
            output: .file(outputFile.path),
            error: .file(errorFile.path)
        )
        let status = await child.finished().termination
        let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard status.succeeded else {
            let said = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw StoreError(.backend, detail: "Scripts/postgres \(arguments[0]) failed", reason: said)
        }
        return printed
    }
}
