import Foundation
import StoreKitLite
import StoreKitLitePostgres
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// The backends the service-level tests run on: ``local`` through `arguments:`, and ``postgres`` through each
/// suite's `OnPostgres` tests, which are skipped, with the reason, when no server is configured.
enum BackendKind: String, CustomStringConvertible, Sendable {
    case memory
    case sqliteFile
    /// A SQLite file whose backend reads and commits on the calling thread (`SQLiteBackend.Execution`).
    case sqliteFileCallingThread
    case sqliteMemory
    /// PostgreSQL at `STOREKITLITE_POSTGRES_URL`, a fresh schema per store; skipped (with the reason) without it.
    /// A suite whose tests use it carries the `.droppingPostgresSchemas` trait.
    case postgres

    /// The backends that need no server.
    static let local: [BackendKind] = [.memory, .sqliteFile, .sqliteFileCallingThread, .sqliteMemory]

    var description: String { rawValue }
}

/// A fresh store of one kind in its own temporary folder.
struct StoreFixture: Sendable {
    let kind: BackendKind
    let folder = TemporaryFolder()
    let model: StoreModel
    let backend: any StoreBackend

    /// A fresh store; for PostgreSQL without a server, cancels (skips) the running test case.
    init(_ kind: BackendKind, model: StoreModel = StoreModel(Vehicle.self, Driver.self)) throws {
        self.kind = kind
        self.model = model
        switch kind {
        case .memory: backend = InMemoryBackend()
        case .sqliteFile: backend = SQLiteBackend(path: folder.path("store.sqlite"))
        case .sqliteFileCallingThread:
            backend = SQLiteBackend(path: folder.path("store.sqlite"), execution: .callingThread)
        case .sqliteMemory: backend = SQLiteBackend(location: .memory)
        case .postgres: backend = try PostgresTestDatabase.makeBackend()
        }
    }

    /// A fresh backend of this kind, in its own folder (a fresh schema for PostgreSQL).
    static func makeBackend(_ kind: BackendKind, folder: TemporaryFolder) throws -> any StoreBackend {
        switch kind {
        case .postgres: try PostgresTestDatabase.makeBackend()
        case .memory: InMemoryBackend()
        case .sqliteFile: SQLiteBackend(path: folder.path("conformance-\(UUID().uuidString).sqlite"))
        case .sqliteFileCallingThread:
            SQLiteBackend(path: folder.path("conformance-\(UUID().uuidString).sqlite"), execution: .callingThread)
        case .sqliteMemory: SQLiteBackend(location: .memory)
        }
    }

    /// A new initialized root service on the fixture's store.
    func open(mergePolicy: MergePolicy = .error) async throws -> PersistenceService {
        try await PersistenceService.open(model: model, backend: backend, mergePolicy: mergePolicy)
    }
}
