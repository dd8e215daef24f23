import Foundation
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting

/// The backends every service-level test runs on.
enum BackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory
    case sqliteFile
    /// A SQLite file whose backend reads and commits on the calling thread (`SQLiteBackend.Execution`).
    case sqliteFileCallingThread
    case sqliteMemory

    var description: String { rawValue }
}

/// A fresh store of one kind in its own temporary folder.
struct StoreFixture: Sendable {
    let kind: BackendKind
    let folder = TemporaryFolder()
    let model: StoreModel
    let backend: any StoreBackend

    init(_ kind: BackendKind, model: StoreModel = StoreModel(Vehicle.self, Driver.self)) {
        self.kind = kind
        self.model = model
        switch kind {
        case .memory: backend = InMemoryBackend()
        case .sqliteFile: backend = SQLiteBackend(path: folder.path("store.sqlite"))
        case .sqliteFileCallingThread:
            backend = SQLiteBackend(path: folder.path("store.sqlite"), execution: .callingThread)
        case .sqliteMemory: backend = SQLiteBackend(location: .memory)
        }
    }

    /// A fresh backend of this kind, in its own folder.
    static func makeBackend(_ kind: BackendKind, folder: TemporaryFolder) -> any StoreBackend {
        switch kind {
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
