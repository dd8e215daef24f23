import Foundation
import ModelKitTesting
import StoreKitLite
import StoreKitLiteSQLite
import StoreKitLiteTesting
import Testing

/// A backend that notes which reads the service asks of the SQLite backend it wraps.
private final class ReadRecordingBackend: StoreBackend {
    let inner: SQLiteBackend
    private let calls = LockedValue<[String]>([])

    init(path: String) {
        inner = SQLiteBackend(path: path)
    }

    var recorded: [String] { calls.value }
    func reset() { calls.value = [] }

    func migrate(to model: StoreModel) async throws(StoreError) { try await inner.migrate(to: model) }
    func apply(_ batch: ChangeBatch) async throws(StoreError) { try await inner.apply(batch) }
    func fetch(_ query: RowQuery) async throws(StoreError) -> [StoreRow] {
        calls.update { $0.append("fetch") }
        return try await inner.fetch(query)
    }
    func count(_ query: RowQuery, excluding excluded: [UUID]) async throws(StoreError) -> Int {
        calls.update { $0.append("count excluding \(excluded.count), limit \(query.limit.map(String.init) ?? "none")") }
        return try await inner.count(query, excluding: excluded)
    }
    func fetch(ids: [UUID], of entity: EntityDescription) async throws(StoreError) -> [StoreRow] {
        calls.update { $0.append("fetch ids") }
        return try await inner.fetch(ids: ids, of: entity)
    }
    func committedChanges() -> AsyncStream<ChangeBatch> { inner.committedChanges() }
}

struct CountTests {
    @Test func countAsksTheStoreToCountAndOverlaysPendingChangesWithoutFetchingRows() async throws {
        let folder = TemporaryFolder()
        let backend = ReadRecordingBackend(path: folder.path("count.sqlite"))
        let root = try await PersistenceService.open(model: StoreModel(Vehicle.self), backend: backend)
        let ids = try await root.create(Vehicle.self, from: 1...10, options: .saveAndPersist) {
            $1.modelYear = 2010 + $0
        }
        let child = root.makeChild()
        // Pending: one stored match moved out of the range, one stored non-match moved in, one match deleted,
        // two new matches and one new non-match.
        try await child.update(ids: [ids[9], ids[0]]) { vehicles in
            vehicles[0].modelYear = 1990
            vehicles[1].modelYear = 2030
            return .dontSave
        }
        try await child.delete(ids: [ids[8]], options: .dontSave)
        try await child.create(Vehicle.self, from: [2040, 2041, 1980], options: .dontSave) { $1.modelYear = $0 }
        backend.reset()

        let query = Query<Vehicle>(\.modelYear > 2015)
        #expect(try await root.count(query) == 5)
        #expect(try await child.count(query) == 4 - 1 + 1 + 2)
        #expect(try await child.count(query.offset(2).limit(3)) == 3)
        #expect(try await child.count(query.offset(5)) == 1)
        #expect(try await child.count(query.offset(9)) == 0)
        #expect(
            backend.recorded == [
                "count excluding 0, limit none", "count excluding 6, limit none", "count excluding 6, limit none",
                "count excluding 6, limit none", "count excluding 6, limit none",
            ]
        )
        #expect(try await child.count(query) == child.fetch(query).count)
    }
}
