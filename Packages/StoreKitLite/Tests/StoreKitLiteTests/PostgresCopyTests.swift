import Foundation
import StoreKitLite
import StoreKitLitePostgres
import Testing

/// Large batches of inserts go to PostgreSQL in one `COPY … FROM STDIN`: they store exactly what the same rows
/// store through bound parameters (in small batches), and fail as a whole with the same typed errors.
@Suite(.droppingPostgresSchemas)
struct PostgresCopyTests {
    /// Names that need quoting, so that the `COPY` statement's quoting of the schema-qualified table and of the
    /// columns is exercised too.
    static let entity = EntityDescription(
        name: "odd \"items\"",
        columns: [
            ColumnDescription(name: "text \"t\"", type: .text, isNullable: true),
            ColumnDescription(name: "integer", type: .integer, isNullable: true),
            ColumnDescription(name: "real", type: .real, isNullable: true),
            ColumnDescription(name: "blob", type: .blob, isNullable: true),
        ]
    )
    static let model = StoreModel(
        entities: [entity],
        migrations: [Migration("create odd items", steps: [.createEntity(entity)])]
    )

    /// More rows than the fewest that go through `COPY`.
    static let batchSize = 2_000

    static let texts: [StoreValue] = [
        .null, .text(""), .text("plain"), .text("tab\there"), .text("new\nline"), .text("carriage\rreturn"),
        .text("back\\slash"), .text("\\N"), .text("\\."), .text("\\x00"), .text("é e\u{301} 🚗 ß 中文"),
        .text("  leading and trailing  "), .text("\t\n\r\\"), .text("'quote' \"double\""), .text("\u{7f}\u{1}"),
    ]
    static let integers: [StoreValue] = [
        .null, .integer(.min), .integer(.min + 1), .integer(-1), .integer(0), .integer(1), .integer(.max),
        .integer(9_007_199_254_740_993),
        // A real with an exact integer value stored in an integer column is an integer.
        .real(42), .real(-0.0), .real(-9_007_199_254_740_992),
    ]
    static let reals: [StoreValue] = [
        .null, .real(0), .real(-0.0), .real(1.5), .real(-1.5), .real(0.1), .real(1.0 / 3.0), .real(.pi),
        .real(.greatestFiniteMagnitude), .real(-.greatestFiniteMagnitude), .real(.leastNonzeroMagnitude),
        .real(.leastNormalMagnitude), .real(1e300), .real(1e-300), .real(123_456_789.123_456_78),
        .real(.infinity), .real(-.infinity),
        // NaN is stored as NULL; an integer stored in a real column is a real.
        .real(.nan), .integer(.max), .integer(.min), .integer(-7),
    ]
    static let blobs: [StoreValue] = [
        .null, .blob(Data()), .blob(Data([0])), .blob(Data((0...255).map { UInt8($0) })),
        .blob(Data((0...255).reversed().map { UInt8($0) })), .blob(Data("\\\t\n".utf8)),
    ]

    static func rows(count: Int) -> [StoreRow] {
        (0..<count).map { index in
            StoreRow(
                id: UUID(),
                revision: 0,
                values: [
                    texts[index % texts.count], integers[index % integers.count],
                    reals[(index / 3) % reals.count], blobs[(index / 5) % blobs.count],
                ]
            )
        }
    }

    static func inserting(_ rows: [StoreRow]) -> ChangeBatch {
        ChangeBatch(entities: [EntityChanges(entity: entity, inserts: rows)])
    }

    /// What a value of `column` reads back as: the storage-class conversions of a bound parameter.
    static func expected(_ value: StoreValue, column: Int) -> StoreValue {
        switch (value, entity.columns[column].type) {
        case (.real(let real), .integer): .integer(Int64(exactly: real) ?? 0)
        case (.integer(let integer), .real): .real(Double(integer))
        case (.real(let real), .real) where real.isNaN: .null
        default: value
        }
    }

    /// Equal, with reals compared bit for bit (so `-0.0` is not `0.0`).
    static func identical(_ lhs: StoreValue, _ rhs: StoreValue) -> Bool {
        if case .real(let left) = lhs, case .real(let right) = rhs { return left.bitPattern == right.bitPattern }
        return lhs == rhs
    }

    static func count(_ backend: PostgresBackend) async throws -> Int {
        try await backend.count(RowQuery(entity: entity), excluding: [])
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func awkwardValuesRoundTripExactlyAndAsBoundParametersStoreThem() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        var copied = Self.rows(count: Self.batchSize)
        // Values larger than the chunks the input is sent in.
        copied[7].values[3] = .blob(Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }))
        copied[8].values[0] = .text(String(repeating: "tab\t, new\nline, back\\slash, 🚗; ", count: 20_000))
        try await backend.apply(Self.inserting(copied))
        // The same values, inserted a few rows a batch (multi-row INSERTs with bound parameters).
        let bound = Self.rows(count: Self.batchSize / 10)
        for start in stride(from: 0, to: bound.count, by: 10) {
            try await backend.apply(Self.inserting(Array(bound[start..<min(start + 10, bound.count)])))
        }
        let stored = try await backend.fetch(ids: (copied + bound).map(\.id), of: Self.entity)
        let byID = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) })
        #expect(byID.count == copied.count + bound.count)
        var mismatches: [String] = []
        for row in copied + bound {
            guard let read = byID[row.id] else {
                mismatches.append("\(row.id) is missing")
                continue
            }
            if read.revision != 1 { mismatches.append("\(row.id) has revision \(read.revision)") }
            for column in Self.entity.columns.indices {
                let expected = Self.expected(row.values[column], column: column)
                if !Self.identical(read.values[column], expected) {
                    mismatches.append("\(Self.entity.columns[column].name): \(read.values[column]) != \(expected)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aDuplicateIDIsATypedDuplicateAndWritesNothing() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        let existing = Self.rows(count: 3)
        try await backend.apply(Self.inserting(existing))
        // A duplicate within the batch, near its end.
        var within = Self.rows(count: Self.batchSize)
        within[Self.batchSize - 1].id = within[0].id
        let first = await #expect(throws: StoreError.self) { try await backend.apply(Self.inserting(within)) }
        #expect(first?.code == .duplicateRecord)
        // A duplicate of a stored record.
        var ofStored = Self.rows(count: Self.batchSize)
        ofStored[Self.batchSize / 2].id = existing[1].id
        let second = await #expect(throws: StoreError.self) { try await backend.apply(Self.inserting(ofStored)) }
        #expect(second?.code == .duplicateRecord)
        #expect(try await Self.count(backend) == existing.count)
        // The connection the failed COPYs ran on serves the next batch.
        try await backend.apply(Self.inserting(Self.rows(count: Self.batchSize)))
        #expect(try await Self.count(backend) == existing.count + Self.batchSize)
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func aValueOfTheWrongStorageClassIsATypedErrorAndWritesNothing() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        for (column, value) in [
            (0, StoreValue.integer(1)), (1, .real(1.5)), (1, .text("1")), (2, .blob(Data([1]))),
            (3, .text("bytes")),
        ] {
            var rows = Self.rows(count: Self.batchSize)
            rows[Self.batchSize - 2].values[column] = value
            let error = await #expect(throws: StoreError.self) { try await backend.apply(Self.inserting(rows)) }
            #expect(error?.code == .backend)
        }
        #expect(try await Self.count(backend) == 0)
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func textPostgreSQLCannotHoldFailsTheWholeCopyWithATypedError() async throws {
        let backend = try PostgresTestDatabase.makeBackend()
        try await backend.migrate(to: Self.model)
        var rows = Self.rows(count: Self.batchSize)
        rows[Self.batchSize / 2].values[0] = .text("nul \u{0} inside")
        let error = await #expect(throws: StoreError.self) { try await backend.apply(Self.inserting(rows)) }
        #expect(error?.code == .backend)
        #expect(try await Self.count(backend) == 0)
        try await backend.apply(Self.inserting(Self.rows(count: Self.batchSize)))
        #expect(try await Self.count(backend) == Self.batchSize)
    }
}
