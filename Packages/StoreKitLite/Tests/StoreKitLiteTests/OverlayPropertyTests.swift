import ModelKitTesting
import StoreKitLite
import Testing

/// Reads over unsaved changes (evaluated in memory and merged with SQL results) give exactly what the same query
/// gives in SQL once the changes are stored.
struct OverlayPropertyTests {
    private static let plates = ["AB-1", "ab-1", "AB-12", "B", "", "é", "e\u{301}", "Zz", "zz"]
    private static let makes = ["Volvo", "volvo", "Saab", "SAAB", "Fiat"]
    private static let mileages: [Double?] = [nil, 0, 1.5, -3, 1e9]

    private static func randomize(_ vehicle: inout Vehicle, _ random: inout SeededGenerator) {
        vehicle.plate = plates.randomElement(using: &random) ?? ""
        vehicle.make = makes.randomElement(using: &random) ?? ""
        vehicle.modelYear = Int.random(in: 1995...2005, using: &random)
        vehicle.mileage = mileages.randomElement(using: &random) ?? nil
        vehicle.inService = Bool.random(using: &random)
    }

    private static func predicate(depth: Int, _ random: inout SeededGenerator) -> RecordPredicate<Vehicle> {
        switch Int.random(in: 0..<(depth > 0 ? 10 : 7), using: &random) {
        case 0: return \.modelYear > Int.random(in: 1994...2006, using: &random)
        case 1: return \.plate == (plates.randomElement(using: &random) ?? "")
        case 2: return .hasPrefix(\.plate, ["", "A", "a", "AB", "e"].randomElement(using: &random) ?? "")
        case 3: return Bool.random(using: &random) ? .isNull(\.mileage) : \.mileage < 1.0
        case 4: return .isIn(\.make, makes.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)))
        case 5: return .contains(\.make, ["a", "AA", "o"].randomElement(using: &random) ?? "")
        case 6: return \.inService == Bool.random(using: &random)
        case 7: return !predicate(depth: depth - 1, &random)
        case 8: return predicate(depth: depth - 1, &random) && predicate(depth: depth - 1, &random)
        default: return predicate(depth: depth - 1, &random) || predicate(depth: depth - 1, &random)
        }
    }

    private static func query(_ random: inout SeededGenerator) -> Query<Vehicle> {
        var query = Query<Vehicle>(predicate(depth: 2, &random))
        switch Int.random(in: 0..<4, using: &random) {
        case 0: query = query.sorted(by: \.modelYear, ascending: Bool.random(using: &random))
        case 1: query = query.sorted(by: \.mileage, ascending: Bool.random(using: &random)).sorted(by: \.plate)
        case 2: query = query.sorted(by: \.make)
        default: break
        }
        if Bool.random(using: &random) { query = query.limit(Int.random(in: 0...15, using: &random)) }
        if Bool.random(using: &random) { query = query.offset(Int.random(in: 0...10, using: &random)) }
        return query
    }

    @Test(arguments: [BackendKind.memory, .sqliteMemory], Array(0..<25))
    func overlaidReadsMatchSQLAfterTheChangesAreStored(kind: BackendKind, seed: Int) async throws {
        var random = SeededGenerator(seed: UInt64(seed) &* 0x1234_5678_9ABC_DEF1)
        let store = try StoreFixture(kind)
        let root = try await store.open()
        let ids = try await root.create(Vehicle.self, from: 0..<40, options: .saveAndPersist) { _, vehicle in
            Self.randomize(&vehicle, &random)
        }
        let parent = root.makeChild()
        let child = parent.makeChild()
        let shuffled = ids.shuffled(using: &random)
        try await parent.update(ids: Array(shuffled[0..<6])) { vehicles in
            for index in vehicles.indices { Self.randomize(&vehicles[index], &random) }
            return .dontSave
        }
        try await child.update(ids: Array(shuffled[3..<12])) { vehicles in
            for index in vehicles.indices { Self.randomize(&vehicles[index], &random) }
            return .dontSave
        }
        try await child.delete(ids: Array(shuffled[12..<17]), options: .dontSave)
        try await child.create(Vehicle.self, from: 0..<6, options: .dontSave) { _, vehicle in
            Self.randomize(&vehicle, &random)
        }
        let queries = (0..<8).map { _ in Self.query(&random) }
        var overlaid: [[Vehicle]] = []
        for query in queries {
            let fetched = try await child.fetch(query)
            overlaid.append(fetched)
            // The overlaid count (SQL `COUNT(*)` plus pending changes matched in memory) equals the overlaid fetch.
            #expect(try await child.count(query) == fetched.count, "count of \(query.predicate.expression)")
        }
        try await child.saveAll(.saveAndPersist)
        for (query, expected) in zip(queries, overlaid) {
            let stored = try await root.fetch(query)
            #expect(stored == expected, "query \(query.predicate.expression)")
            #expect(try await root.count(query) == expected.count, "stored count of \(query.predicate.expression)")
        }
    }
}

extension OverlayPropertyTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = OverlayPropertyTests()

        @Test(arguments: Array(0..<25))
        func overlaidReadsMatchSQLAfterTheChangesAreStored(seed: Int) async throws {
            try await tests.overlaidReadsMatchSQLAfterTheChangesAreStored(kind: .postgres, seed: seed)
        }
    }
}
