import Foundation
import StoreKitLite
import StoreKitLiteTesting

/// The backends every service-level test runs on.
enum BackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory

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
        }
    }

    /// A new initialized root service on the fixture's store.
    func open(mergePolicy: MergePolicy = .error) async throws -> PersistenceService {
        try await PersistenceService.open(model: model, backend: backend, mergePolicy: mergePolicy)
    }
}
