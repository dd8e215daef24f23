import Foundation
import StoreKitLite
import Testing

/// Where SQL dialects differ (collation, `NULL` order, integers against reals beyond 2^53, values of another
/// storage class than their column), every backend gives what the in-memory evaluation gives.
struct DialectAgreementTests {
    static let entity = EntityDescription(
        name: "dialect",
        columns: [
            ColumnDescription(name: "name", type: .text, isNullable: true),
            ColumnDescription(name: "score", type: .integer, isNullable: true),
            ColumnDescription(name: "ratio", type: .real, isNullable: true),
            ColumnDescription(name: "payload", type: .blob, isNullable: true),
        ]
    )
    static let model = StoreModel(
        entities: [entity],
        migrations: [Migration("create dialect", steps: [.createEntity(entity)])]
    )
    static let name = ColumnReference(name: "name", index: 0)
    static let score = ColumnReference(name: "score", index: 1)
    static let ratio = ColumnReference(name: "ratio", index: 2)
    static let payload = ColumnReference(name: "payload", index: 3)

    static let twoTo53: Int64 = 9_007_199_254_740_992
    static let names: [String?] = [nil, "", "a", "A", "Z", "z", "é", "e\u{301}", "ab", "a b", "%", "_", "\\", "🚗", "ß"]
    static let scores: [Int64?] = [nil, .min, -twoTo53 - 1, -1, 0, 1, 2, twoTo53, twoTo53 + 1, twoTo53 + 3, .max]
    static let ratios: [Double?] = [
        nil, -1e300, -9.3e18, -2.5, -0.5, -0.0, 0, 0.5, 1, 2.5, 9_007_199_254_740_992, 9_007_199_254_740_996,
        9.223372036854775807e18, 1e300,
    ]
    static let payloads: [[UInt8]?] = [nil, [], [0], [0, 0], [1], [255], [0, 255]]

    static func rows() -> [StoreRow] {
        let count = max(names.count, scores.count, ratios.count, payloads.count) * 3
        return (0..<count).map { index in
            StoreRow(
                id: UUID(),
                revision: 0,
                values: [
                    names[index % names.count].map { .text($0) } ?? .null,
                    scores[(index / 2) % scores.count].map { .integer($0) } ?? .null,
                    ratios[(index / 3) % ratios.count].map { .real($0) } ?? .null,
                    payloads[(index * 5) % payloads.count].map { .blob(Data($0)) } ?? .null,
                ]
            )
        }
    }

    /// Operands of every storage class, numbers near the edges of exact conversion included.
    static let operands: [StoreValue] = [
        .null, .integer(0), .integer(1), .integer(twoTo53 + 1), .integer(twoTo53 + 3), .integer(.max), .integer(.min),
        .real(0.5), .real(1), .real(-0.0), .real(9_007_199_254_740_994), .real(9.3e18), .real(-9.3e18),
        .real(9.223372036854775807e18), .real(.infinity), .real(-.infinity), .text(""), .text("a"), .text("1"),
        .text("é"), .blob(Data()), .blob(Data([0])),
    ]

    /// The storage class of a value (`nil` for `NULL`).
    static func storageClass(_ value: StoreValue) -> ColumnType? {
        switch value {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    /// Comparisons, lists and text tests on every column, each also negated; `acrossStorageClasses` picks those
    /// whose operand is of another storage class than the column (text tests count as text operands).
    static func predicates(acrossStorageClasses: Bool) -> [StorePredicate] {
        var predicates: [StorePredicate] = []
        let columns = [name, score, ratio, payload]
        for column in columns {
            let type = entity.columns[column.index].type
            func fits(_ value: StoreValue) -> Bool {
                storageClass(value).map { $0 == type } ?? true
            }
            for comparison in StorePredicate.Comparison.allCases {
                for operand in operands where fits(operand) != acrossStorageClasses {
                    predicates.append(.comparison(column, comparison, operand))
                }
            }
            let lists: [[StoreValue]] = [
                [.integer(1), .real(0.5), .text("a"), .blob(Data([0]))],
                [.integer(twoTo53 + 1), .text("z"), .null],
                [.real(0.25), .blob(Data([9]))],
                [.integer(2), .integer(twoTo53 + 3), .null],
                [.real(0.5), .real(2.5)],
                [.text("A"), .text("é"), .null],
                [.blob(Data([0, 255])), .blob(Data())],
            ]
            for list in lists where list.allSatisfy(fits) != acrossStorageClasses {
                predicates.append(.isIn(column, list))
            }
            if (type == .text) != acrossStorageClasses {
                for text in ["", "a", "A", "é", "e", "%", "_", "\\", "🚗"] {
                    predicates += [.hasPrefix(column, text), .contains(column, text)]
                }
            }
        }
        return predicates + predicates.map { .not($0) }
    }

    /// The predicates and orderings whose results differ from the in-memory evaluation's, described briefly.
    static func differences(on backend: any StoreBackend, acrossStorageClasses: Bool) async throws -> [String] {
        try await backend.migrate(to: model)
        try await backend.apply(ChangeBatch(entities: [EntityChanges(entity: entity, inserts: rows())]))
        let all = try await backend.fetch(RowQuery(entity: entity))
        var differences: [String] = []
        for predicate in predicates(acrossStorageClasses: acrossStorageClasses) {
            let query = RowQuery(entity: entity, predicate: predicate)
            let expected = query.apply(to: all).map(\.id)
            let found = try await backend.fetch(query).map(\.id)
            let counted = try await backend.count(query, excluding: [])
            if found != expected || counted != expected.count {
                differences.append("\(predicate)".replacingOccurrences(of: "StoreKitLite.", with: ""))
            }
        }
        for column in [name, score, ratio, payload] where !acrossStorageClasses {
            for ascending in [true, false] {
                let query = RowQuery(entity: entity, sortKeys: [SortKey(column: column, ascending: ascending)])
                if try await backend.fetch(query).map(\.id) != query.apply(to: all).map(\.id) {
                    differences.append("order by \(column.name) \(ascending ? "ascending" : "descending")")
                }
            }
        }
        return differences
    }

    @Test(arguments: BackendKind.local)
    func predicatesAndOrderingMatchTheInMemoryEvaluation(kind: BackendKind) async throws {
        let store = try StoreFixture(kind, model: Self.model)
        let differences = try await Self.differences(on: store.backend, acrossStorageClasses: false)
        #expect(differences.count == 0, "among them \(differences.prefix(3))")
    }

    @Test(arguments: BackendKind.local)
    func comparisonsAcrossStorageClassesMatchTheInMemoryEvaluation(kind: BackendKind) async throws {
        let store = try StoreFixture(kind, model: Self.model)
        // SQLite would convert an operand to its column's affinity (`score = '1'` matching 1, `name < 1` comparing
        // text with text) and `instr` would read numbers and blobs as text; the backend decides such comparisons
        // as the in-memory evaluation orders storage classes (numbers before text before blobs).
        let differences = try await Self.differences(on: store.backend, acrossStorageClasses: true)
        #expect(differences.isEmpty, "among them \(differences.prefix(3))")
    }
}

extension DialectAgreementTests {
    /// The tests above on PostgreSQL (`STOREKITLITE_POSTGRES_URL`), each store on a fresh schema.
    @Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .droppingPostgresSchemas)
    struct OnPostgres {
        let tests = DialectAgreementTests()

        @Test func predicatesAndOrderingMatchTheInMemoryEvaluation() async throws {
            try await tests.predicatesAndOrderingMatchTheInMemoryEvaluation(kind: .postgres)
        }

        @Test func comparisonsAcrossStorageClassesMatchTheInMemoryEvaluation() async throws {
            let store = try StoreFixture(.postgres, model: DialectAgreementTests.model)
            let differences = try await DialectAgreementTests.differences(on: store.backend, acrossStorageClasses: true)
            #expect(differences.count == 0, "among them \(differences.prefix(3))")
        }
    }
}
