import Foundation
import Logging
import PostgresNIO
import StoreKitLite
import StoreKitLitePostgres
import Testing

/// The PostgreSQL server the tests use, from `STOREKITLITE_POSTGRES_URL` (`Scripts/postgres run -- swift test`
/// starts a throwaway one; `Scripts/test-all` does so too). Without the variable, PostgreSQL test cases are skipped
/// with ``skipReason``.
///
/// Every backend a test makes gets a schema of its own (`skl_<random>`), registered with the test case's
/// ``PostgresSchemaCleanup`` scope, which drops it when the test case ends; parallel tests never share tables.
enum PostgresTestDatabase {
    /// Why PostgreSQL tests skip.
    static let skipReason: Comment =
        "STOREKITLITE_POSTGRES_URL is not set; Scripts/postgres run -- swift test starts a throwaway server"

    /// The server's URL, if the tests have one.
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }()

    /// Whether PostgreSQL tests run.
    static var isConfigured: Bool { url != nil }

    /// The configuration from the URL, with the given schema.
    static func configuration(schema: String) throws -> PostgresBackend.Configuration {
        guard let url else { try Test.cancel(skipReason) }
        var configuration = try PostgresBackend.Configuration(url: url)
        configuration.schema = schema
        return configuration
    }

    /// A `PostgresClient` for the test server; the caller runs it.
    static func makeClient() throws -> PostgresClient {
        let configuration = try configuration(schema: "public")
        var client = PostgresClient.Configuration(
            host: configuration.host,
            port: configuration.port,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: .disable
        )
        client.options.maximumConnections = 12
        return PostgresClient(configuration: client)
    }

    /// The client every fixture's backend shares, run for the life of the test process.
    private static let shared: Result<PostgresClient, any Error> = Result(catching: {
        let client = try makeClient()
        Task { await client.run() }
        return client
    })

    /// A fresh schema name, registered to be dropped when the current test case ends.
    static func freshSchema() -> String {
        let schema = "skl_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        if let cleanup = PostgresSchemaCleanup.current {
            cleanup.register(schema)
        } else {
            Issue.record("a PostgreSQL test needs the .droppingPostgresSchemas trait on its suite")
        }
        return schema
    }

    /// A backend on a fresh schema, on the shared client; skips the test case without a server.
    static func makeBackend(copyThreshold: Int? = PostgresBackend.defaultCopyThreshold) throws -> PostgresBackend {
        guard isConfigured else { try Test.cancel(skipReason) }
        // Only the change-feed tests follow other processes' commits (on clients of their own): a follower keeps
        // one pooled connection, and the many backends of parallel tests share this client's few.
        return PostgresBackend(
            client: try shared.get(),
            schema: freshSchema(),
            changeFeed: .thisProcess,
            copyThreshold: copyThreshold
        )
    }

    /// Drops schemas and everything in them.
    static func drop(_ schemas: [String]) async throws {
        guard !schemas.isEmpty else { return }
        let client = try shared.get()
        for schema in schemas {
            let name = "\"" + schema.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(name) CASCADE"))
        }
    }
}

/// Drops, when each test case ends, the PostgreSQL schemas its backends were given.
struct PostgresSchemaCleanup: SuiteTrait, TestTrait, TestScoping {
    /// The schemas of the running test case.
    final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `schemas` is read and written only while `lock` is held. (An NSLock rather than
        // `Mutex`, which ThreadSanitizer on Linux does not see.)
        private let lock = NSLock()
        private var schemas: [String] = []

        func register(_ schema: String) {
            lock.lock()
            defer { lock.unlock() }
            schemas.append(schema)
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return schemas
        }
    }

    @TaskLocal static var current: Registry?

    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let registry = Registry()
        do {
            try await Self.$current.withValue(registry) { try await function() }
        } catch {
            try? await PostgresTestDatabase.drop(registry.all)
            throw error
        }
        try await PostgresTestDatabase.drop(registry.all)
    }
}

extension Trait where Self == PostgresSchemaCleanup {
    /// Drops the PostgreSQL schemas a test case's backends were given when it ends.
    static var droppingPostgresSchemas: Self { PostgresSchemaCleanup() }
}
