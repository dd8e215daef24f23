import StoreKitLite
import StoreKitLiteTesting
import Testing

/// Every backend passes the conformance suite; a future backend adds one test like these.
@Suite(.droppingPostgresSchemas)
struct BackendConformanceTests {
    @Test(arguments: BackendConformance.checks + BackendConformance.synchronousChecks)
    func inMemoryBackendConforms(check: BackendConformance.Check) async throws {
        try await check.run { InMemoryBackend() }
    }

    @Test(arguments: BackendConformance.checks + BackendConformance.synchronousChecks)
    func sqliteFileBackendConforms(check: BackendConformance.Check) async throws {
        let folder = TemporaryFolder()
        try await check.run { try StoreFixture.makeBackend(.sqliteFile, folder: folder) }
    }

    @Test(arguments: BackendConformance.checks)
    func sqliteFileBackendCommittingOnTheCallingThreadConforms(check: BackendConformance.Check) async throws {
        let folder = TemporaryFolder()
        try await check.run { try StoreFixture.makeBackend(.sqliteFileCallingThread, folder: folder) }
    }

    @Test(arguments: BackendConformance.checks + BackendConformance.synchronousChecks)
    func sqliteInMemoryBackendConforms(check: BackendConformance.Check) async throws {
        let folder = TemporaryFolder()
        try await check.run { try StoreFixture.makeBackend(.sqliteMemory, folder: folder) }
    }

    /// Each check on a fresh schema of the server at `STOREKITLITE_POSTGRES_URL`.
    @Test(
        .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason),
        arguments: BackendConformance.checks
    )
    func postgresBackendConforms(check: BackendConformance.Check) async throws {
        try await check.run { try PostgresTestDatabase.makeBackend() }
    }
}
