import StoreKitLite
import Testing

/// A record whose columns are a computed property and a property of a nested struct.
struct Trip: Record, Equatable {
    struct Route: Equatable, Sendable {
        var from = ""
        var to = ""
    }

    var id: ID
    var kilometres = 0.0
    var route = Route()

    var miles: Double {
        get { kilometres / 1.609_344 }
        set { kilometres = newValue * 1.609_344 }
    }

    init(id: ID) {
        self.id = id
    }

    static let schema = RecordSchema<Trip>(
        "trips",
        Column("miles", \.miles),
        Column("from", \.route.from),
        Column("to", \.route.to)
    )
}

struct ColumnAccessTests {
    @Test(arguments: BackendKind.local)
    func computedAndNestedPropertiesAreStoredReadAndQueried(kind: BackendKind) async throws {
        let store = try StoreFixture(kind, model: StoreModel(Trip.self))
        let service = try await store.open()
        let trip = try await service.create(Trip.self, options: .saveAndPersist) {
            $0.miles = 100
            $0.route = Trip.Route(from: "Oslo", to: "Bergen")
        }
        try await service.create(Trip.self, options: .saveAndPersist) { $0.miles = 5 }
        let long = try await service.fetch(Query<Trip>(\.miles > 50 && \.route.to == "Bergen"))
        #expect(long == [trip])
        #expect(abs((long.first?.kilometres ?? 0) - 160.9344) < 1e-9)
        try await service.update(ids: [trip.id]) { trips in
            trips[0].route.to = "Trondheim"
            return .saveAndPersist
        }
        #expect(try await store.open().fetch(ids: [trip.id]).map(\.route.to) == ["Trondheim"])
    }
}

extension ColumnAccessTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = ColumnAccessTests()

        @Test func computedAndNestedPropertiesAreStoredReadAndQueried() async throws {
            try await tests.computedAndNestedPropertiesAreStoredReadAndQueried(kind: .postgres)
        }
    }
}
