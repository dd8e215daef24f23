import Foundation
import ModelKitTesting
import StoreKitLite

/// The bodies of ``BackendConformance``'s checks.
enum ConformanceChecks {
    static let items = EntityDescription(
        name: "conformance_items",
        columns: [
            ColumnDescription(name: "name", type: .text, isNullable: false),
            ColumnDescription(name: "score", type: .integer, isNullable: true),
            ColumnDescription(name: "ratio", type: .real, isNullable: true),
            ColumnDescription(name: "payload", type: .blob, isNullable: true),
            ColumnDescription(name: "flag", type: .integer, isNullable: false),
        ]
    )
    static let model = StoreModel(
        entities: [items],
        migrations: [Migration("create conformance items", steps: [.createEntity(items)])]
    )

    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ConformanceFailure(message()) }
    }

    static func row(
        _ name: String,
        score: Int64? = nil,
        ratio: Double? = nil,
        payload: [UInt8]? = nil,
        flag: Bool = false
    )
        -> StoreRow
    {
        StoreRow(
            id: uuid(),
            revision: 0,
            values: [
                .text(name), score.map { .integer($0) } ?? .null, ratio.map { .real($0) } ?? .null,
                payload.map { .blob(Data($0)) } ?? .null, .integer(flag ? 1 : 0),
            ]
        )
    }

    /// A fresh version 4 UUID (the suite does not depend on ModelKit's generator).
    static func uuid() -> UUID { UUID() }

    static func insert(_ rows: [StoreRow], into backend: any StoreBackend) async throws {
        try await backend.apply(ChangeBatch(entities: [EntityChanges(entity: items, inserts: rows)]))
    }

    static func all(_ backend: any StoreBackend) async throws -> [StoreRow] {
        try await backend.fetch(RowQuery(entity: items))
    }

    // MARK: - Checks

    static func migrations(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        try await backend.migrate(to: model)
        try await insert([row("kept", score: 7)], into: backend)
        let level = ColumnDescription(name: "level", type: .integer, isNullable: false)
        let note = ColumnDescription(name: "note", type: .text, isNullable: true)
        let grown = EntityDescription(name: items.name, columns: items.columns + [level, note])
        let next = StoreModel(
            entities: [grown],
            migrations: model.migrations + [
                Migration(
                    "add level and note",
                    steps: [
                        .addColumn(entity: items.name, column: level, defaultValue: .integer(3)),
                        .addColumn(entity: items.name, column: note, defaultValue: .text("it's")),
                    ]
                )
            ]
        )
        try await backend.migrate(to: next)
        try await backend.migrate(to: next)
        let rows = try await backend.fetch(RowQuery(entity: grown))
        try expect(rows.count == 1, "expected the row to survive the migration, found \(rows.count)")
        try expect(
            rows.first?.values.suffix(2) == [.integer(3), .text("it's")],
            "expected defaults 3 and \"it's\", found \(rows.first?.values.suffix(2).description ?? "nothing")"
        )
    }

    static func newerSchema(_ backend: any StoreBackend) async throws {
        let newer = StoreModel(
            entities: [items],
            migrations: model.migrations + [Migration("a later migration", steps: [])]
        )
        try await backend.migrate(to: newer)
        try await insert([row("kept")], into: backend)
        do {
            try await backend.migrate(to: model)
            throw ConformanceFailure("migrating to an older model succeeded")
        } catch let error as StoreError {
            try expect(error.code == .newerSchema, "expected newerSchema, got \(error)")
        }
        let stranger = StoreModel(
            entities: [items],
            migrations: [Migration("something else", steps: [.createEntity(items)])]
        )
        do {
            try await backend.migrate(to: stranger)
            throw ConformanceFailure("migrating to an unrelated model succeeded")
        } catch let error as StoreError {
            try expect(error.code == .newerSchema, "expected newerSchema, got \(error)")
        }
        try expect(try await all(backend).count == 1, "the refused migration changed the data")
    }

    static func roundTrip(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let rows = [
            row("", score: Int64.min, ratio: -1e300, payload: [], flag: true),
            row(
                "ünïcødé 🚗 e\u{301} \u{e9} \"quoted\" 'single' %_\\",
                score: Int64.max,
                ratio: 1e-300,
                payload: [0, 255, 0]
            ),
            row("nulls"),
            row(
                String(repeating: "long ", count: 2000),
                score: 0,
                ratio: 0.1,
                payload: Array(repeating: 7, count: 10_000)
            ),
        ]
        try await insert(rows, into: backend)
        let stored = try await all(backend)
        for original in rows {
            guard let found = stored.first(where: { $0.id == original.id }) else {
                throw ConformanceFailure("row \(original.id) was not stored")
            }
            try expect(found.values == original.values, "row \(original.id) came back as \(found.values)")
            try expect(found.revision == 1, "an inserted row has revision \(found.revision), expected 1")
        }
    }

    static func fetchByIDs(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let rows = (0..<5).map { row("r\($0)", score: Int64($0)) }
        try await insert(rows, into: backend)
        let wanted = [rows[3].id, uuid(), rows[0].id]
        let found = try await backend.fetch(ids: wanted, of: items)
        try expect(Set(found.map(\.id)) == [rows[3].id, rows[0].id], "fetch by IDs returned \(found.map(\.id))")
        try expect(try await backend.fetch(ids: [], of: items).isEmpty, "fetch by no IDs returned rows")
    }

    static func updates(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let original = row("before", score: 1, ratio: 1)
        try await insert([original], into: backend)
        var changed = original
        changed.revision = 1
        changed.values[0] = .text("after")
        changed.values[1] = .integer(999)  // not listed as changed: must not be written
        try await backend.apply(
            ChangeBatch(entities: [
                EntityChanges(entity: items, updates: [RowUpdate(row: changed, changedColumns: [0])])
            ])
        )
        let stored = try await backend.fetch(ids: [original.id], of: items)
        try expect(stored.first?.values[0] == .text("after"), "the changed column was not written")
        try expect(stored.first?.values[1] == .integer(1), "an unchanged column was written")
        try expect(stored.first?.revision == 2, "the revision is \(stored.first?.revision ?? -1), expected 2")
        var gone = stored[0]
        gone.revision = 2
        try await backend.apply(ChangeBatch(entities: [EntityChanges(entity: items, deletes: [RowDelete(row: gone)])]))
        try expect(try await all(backend).isEmpty, "the checked delete did not delete")
    }

    static func conflicts(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let first = row("first")
        let second = row("second")
        try await insert([first, second], into: backend)
        var staleUpdate = first
        staleUpdate.values[0] = .text("lost")
        staleUpdate.revision = 7
        var staleDelete = second
        staleDelete.revision = 3
        let newcomer = row("newcomer")
        do {
            try await backend.apply(
                ChangeBatch(entities: [
                    EntityChanges(
                        entity: items,
                        inserts: [newcomer],
                        updates: [RowUpdate(row: staleUpdate, changedColumns: [0])],
                        deletes: [RowDelete(row: staleDelete)]
                    )
                ])
            )
            throw ConformanceFailure("a stale revision was accepted")
        } catch let error as StoreError {
            try expect(error.code == .conflict, "expected a conflict, got \(error)")
            try expect(
                Set(error.records) == [first.id, second.id],
                "the conflict names \(error.records), expected both records"
            )
        }
        let stored = try await all(backend)
        try expect(stored.count == 2, "the failed batch inserted or deleted rows")
        try expect(!stored.contains { $0.values[0] == .text("lost") }, "the failed batch updated a row")
    }

    static func uncheckedWrites(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let original = row("one", score: 1)
        try await insert([original], into: backend)
        var overwrite = original
        overwrite.revision = 42
        overwrite.values[1] = .integer(2)
        try await backend.apply(
            ChangeBatch(entities: [
                EntityChanges(
                    entity: items,
                    updates: [RowUpdate(row: overwrite, changedColumns: [1], checksRevision: false)]
                )
            ])
        )
        try expect(try await all(backend).first?.values[1] == .integer(2), "the unchecked update was not written")
        try await backend.apply(
            ChangeBatch(entities: [
                EntityChanges(entity: items, deletes: [RowDelete(row: overwrite, checksRevision: false)])
            ])
        )
        try expect(try await all(backend).isEmpty, "the unchecked delete did not delete")
    }

    static func duplicateInsert(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let existing = row("existing")
        try await insert([existing], into: backend)
        var duplicate = row("duplicate")
        duplicate.id = existing.id
        do {
            try await insert([row("fresh"), duplicate], into: backend)
            throw ConformanceFailure("a duplicate ID was accepted")
        } catch let error as StoreError {
            try expect(error.code == .duplicateRecord, "expected duplicateRecord, got \(error)")
        }
        let stored = try await all(backend)
        try expect(stored.map(\.values[0]) == [.text("existing")], "the failed batch wrote \(stored.count) rows")
    }

    static func fixedQueries(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let data = [
            row("alpha", score: 1, ratio: 0.5), row("Alpha", score: nil, ratio: 1), row("ALPHA", score: 3),
            row("beta", score: 3, ratio: nil, flag: true), row("", score: -1, ratio: -2), row("al", score: 2),
        ]
        try await insert(data, into: backend)
        let name = ColumnReference(name: "name", index: 0)
        let score = ColumnReference(name: "score", index: 1)
        let ratio = ColumnReference(name: "ratio", index: 2)
        let queries: [RowQuery] = [
            RowQuery(entity: items, predicate: .comparison(score, .greater, .integer(1))),
            RowQuery(entity: items, predicate: .not(.comparison(score, .greater, .integer(1)))),
            RowQuery(entity: items, predicate: .isNull(score)),
            RowQuery(entity: items, predicate: .isIn(score, [.integer(3), .null])),
            RowQuery(entity: items, predicate: .not(.isIn(score, [.integer(3), .null]))),
            RowQuery(entity: items, predicate: .isIn(score, [])),
            RowQuery(entity: items, predicate: .hasPrefix(name, "al")),
            RowQuery(entity: items, predicate: .hasPrefix(name, "")),
            RowQuery(entity: items, predicate: .contains(name, "PH")),
            RowQuery(entity: items, predicate: .or([.isNull(ratio), .comparison(ratio, .less, .integer(0))])),
            RowQuery(entity: items, predicate: .and([])),
            RowQuery(entity: items, predicate: .or([])),
            RowQuery(entity: items, sortKeys: [SortKey(column: name, ascending: true)]),
            RowQuery(entity: items, sortKeys: [SortKey(column: score, ascending: false)], limit: 3, offset: 1),
            RowQuery(entity: items, sortKeys: [SortKey(column: ratio, ascending: true)], offset: 4),
        ]
        let all = try await all(backend)
        for query in queries {
            let expected = query.apply(to: all).map(\.id)
            let found = try await backend.fetch(query).map(\.id)
            try expect(
                found == expected,
                "query \(query.predicate) sorted \(query.sortKeys.count) keys differs from memory"
            )
        }
    }

    static func randomQueries(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_5702_E000_0001)
        let data = (0..<300).map { _ in RandomData.row(using: &random) }
        try await insert(data, into: backend)
        let all = try await all(backend)
        try expect(all.count == data.count, "stored \(all.count) of \(data.count) rows")
        for round in 0..<400 {
            let query = RandomData.query(entity: items, using: &random)
            let expected = query.apply(to: all)
            let found = try await backend.fetch(query)
            try expect(
                found.map(\.id) == expected.map(\.id),
                "random query \(round) differs: \(query.predicate), \(query.sortKeys.count) sort keys, "
                    + "limit \(query.limit.map(String.init) ?? "none"), offset \(query.offset): "
                    + "\(found.count) rows vs \(expected.count) in memory"
            )
        }
    }

    static func cursorReads(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_5702_E000_0003)
        let data =
            [
                row("", score: Int64.min, ratio: -1e300, payload: [], flag: true),
                row("ünïcødé 🚗 e\u{301} \u{e9}", score: Int64.max, ratio: 1e-300, payload: [0, 255, 0]),
                row(String(repeating: "long ", count: 2000), payload: Array(repeating: 7, count: 10_000)),
            ] + (0..<200).map { _ in RandomData.row(using: &random) }
        try await insert(data, into: backend)
        for round in 0..<60 {
            let query = round == 0 ? RowQuery(entity: items) : RandomData.query(entity: items, using: &random)
            let expected = try await backend.fetch(query)
            let (generic, typed) = try await backend.fetch(query) { cursor throws(StoreError) in
                var generic: [StoreRow] = []
                var typed: [StoreRow] = []
                while let id = try cursor.next() {
                    let columns = 0..<cursor.columnCount
                    generic.append(StoreRow(id: id, revision: cursor.revision, values: columns.map(cursor.value)))
                    let values = columns.map { column -> StoreValue in
                        switch cursor.type(at: column) {
                        case nil: .null
                        case .integer: .integer(cursor.integer(at: column))
                        case .real: .real(cursor.real(at: column))
                        case .text: .text(cursor.text(at: column))
                        case .blob: .blob(cursor.blob(at: column))
                        }
                    }
                    typed.append(StoreRow(id: id, revision: cursor.revision, values: values))
                }
                return (generic, typed)
            }
            try expect(generic == expected, "cursor read \(round) differs from the fetched rows (value(at:))")
            try expect(typed == expected, "cursor read \(round) differs from the fetched rows (typed accessors)")
        }
    }

    /// The backend as a ``StoreKitLite/SynchronousStoreBackend``, or a failure naming what it is.
    static func synchronous(_ backend: any StoreBackend) throws -> any SynchronousStoreBackend {
        guard let synchronous = backend as? any SynchronousStoreBackend else {
            throw ConformanceFailure("\(type(of: backend)) is not a SynchronousStoreBackend")
        }
        return synchronous
    }

    static func callingThreadReads(_ backend: any StoreBackend) async throws {
        let synchronous = try synchronous(backend)
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_5702_E000_0004)
        try await insert((0..<100).map { _ in RandomData.row(using: &random) }, into: backend)
        for round in 0..<20 {
            let query = round == 0 ? RowQuery(entity: items) : RandomData.query(entity: items, using: &random)
            let expected = try await backend.fetch(query)
            let read = try synchronous.fetchOnCallingThread(query) { cursor throws(StoreError) in
                var rows: [StoreRow] = []
                while let id = try cursor.next() {
                    let values = (0..<cursor.columnCount).map(cursor.value)
                    rows.append(StoreRow(id: id, revision: cursor.revision, values: values))
                }
                return rows
            }
            try expect(read == expected, "calling-thread read \(round) differs from the fetched rows")
            try expect(
                try synchronous.fetchOnCallingThread(query) == expected,
                "calling-thread fetch \(round) differs from the fetched rows"
            )
        }
    }

    static func callingThreadReadsByID(_ backend: any StoreBackend) async throws {
        let synchronous = try synchronous(backend)
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_5702_E000_0005)
        let rows = (0..<40).map { _ in RandomData.row(using: &random) }
        try await insert(rows, into: backend)
        let wanted = rows.enumerated().filter { $0.offset.isMultiple(of: 3) }.map(\.element.id) + [UUID()]
        let expected = try await backend.fetch(ids: wanted, of: items).sorted { $0.id.uuidString < $1.id.uuidString }
        let read = try synchronous.fetchOnCallingThread(ids: wanted, of: items)
        try expect(
            read.sorted { $0.id.uuidString < $1.id.uuidString } == expected,
            "calling-thread read by ID differs from the fetched rows"
        )
        let one = try synchronous.fetchOnCallingThread(ids: [rows[0].id], of: items)
        try expect(one.map(\.id) == [rows[0].id], "calling-thread read of one ID does not return that row")
        try expect(try synchronous.fetchOnCallingThread(ids: [], of: items).isEmpty, "no IDs should read no rows")
    }

    static func callingThreadCounts(_ backend: any StoreBackend) async throws {
        let synchronous = try synchronous(backend)
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_C0DE_0000_0006)
        let data = (0..<120).map { _ in RandomData.row(using: &random) }
        try await insert(data, into: backend)
        for round in 0..<40 {
            let query = RandomData.query(entity: items, using: &random)
            var excluded: [UUID] = []
            if round % 2 == 1 {
                for row in data where random.next() % 4 == 0 { excluded.append(row.id) }
                excluded.append(uuid())
            }
            let expected = try await backend.count(query, excluding: excluded)
            let found = try synchronous.countOnCallingThread(query, excluding: excluded)
            try expect(found == expected, "calling-thread count \(round) is \(found), the async count \(expected)")
        }
    }

    static func callingThreadCommits(_ backend: any StoreBackend) async throws {
        let synchronous = try synchronous(backend)
        try await backend.migrate(to: model)
        let changes = backend.committedChanges()
        let before = try synchronous.commitVersion()
        let first = row("one")
        try synchronous.applyOnCallingThread(ChangeBatch(entities: [EntityChanges(entity: items, inserts: [first])]))
        let after = try synchronous.commitVersion()
        try expect(after != before, "the commit version did not change after a calling-thread commit")
        try expect(
            try synchronous.fetchOnCallingThread(ids: [first.id], of: items).map(\.revision) == [1],
            "a calling-thread commit is not read back with revision 1"
        )
        // A batch with a duplicate ID fails whole: its other row is not written either.
        let second = row("two")
        do {
            try synchronous.applyOnCallingThread(
                ChangeBatch(entities: [EntityChanges(entity: items, inserts: [second, first])])
            )
            throw ConformanceFailure("a calling-thread commit of a duplicate ID succeeded")
        } catch let error as StoreError {
            try expect(error.code == .duplicateRecord, "a duplicate ID failed with \(error.code), not duplicateRecord")
        }
        try expect(
            try synchronous.fetchOnCallingThread(ids: [second.id], of: items).isEmpty,
            "a failed calling-thread commit left a row behind"
        )
        var iterator = changes.makeAsyncIterator()
        let observed = await iterator.next()
        try expect(
            observed?.entities.first?.inserts.map(\.id) == [first.id],
            "the calling-thread commit was not observed first"
        )
    }

    static func uniqueIndexes(_ backend: any StoreBackend) async throws {
        // The items model, then a unique index over (score, flag) added by a later migration.
        let unique = StoreModel(
            entities: [items],
            migrations: model.migrations + [
                Migration(
                    "unique scores per flag",
                    steps: [
                        .createUniqueIndex(
                            name: "conformance_unique_score",
                            entity: items.name,
                            columns: ["score", "flag"]
                        )
                    ]
                )
            ]
        )
        try await backend.migrate(to: unique)
        let first = row("first", score: 1)
        let nulls = [row("null one"), row("null two")]
        try await insert([first, row("other flag", score: 1, flag: true)] + nulls, into: backend)
        // A clash fails its whole batch with duplicateValue: its other, innocent row is not written either.
        let innocent = row("innocent", score: 2)
        do {
            try await insert([innocent, row("clash", score: 1)], into: backend)
            throw ConformanceFailure("an insert that clashes in a unique index succeeded")
        } catch let error as StoreError {
            try expect(error.code == .duplicateValue, "a unique index clash failed with \(error.code)")
        }
        try expect(
            try await backend.fetch(ids: [innocent.id], of: items).isEmpty,
            "a batch refused for a unique index clash left a row behind"
        )
        // An update into a clash is refused the same way, and the stored row keeps its values.
        let second = row("second", score: 2)
        try await insert([second], into: backend)
        var moved = StoreRow(id: second.id, revision: 1, values: second.values)
        moved.values[1] = .integer(1)
        do {
            try await backend.apply(
                ChangeBatch(entities: [
                    EntityChanges(entity: items, updates: [RowUpdate(row: moved, changedColumns: [1])])
                ])
            )
            throw ConformanceFailure("an update into a unique index clash succeeded")
        } catch let error as StoreError {
            try expect(error.code == .duplicateValue, "an update into a clash failed with \(error.code)")
        }
        try expect(
            try await backend.fetch(ids: [second.id], of: items).first?.values[1] == .integer(2),
            "an update refused for a unique index clash changed the row"
        )
        // A value a deleted record held is free for the next batch.
        try await backend.apply(
            ChangeBatch(entities: [
                EntityChanges(entity: items, deletes: [RowDelete(row: StoreRow(id: first.id, revision: 1, values: []))])
            ])
        )
        let taker = row("taker", score: 1)
        try await insert([taker], into: backend)
        try expect(
            try await backend.fetch(ids: [taker.id], of: items).count == 1,
            "a value freed by a delete could not be taken"
        )
    }

    static func concurrentCommits(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let stored = row("stored")
        try await insert([stored], into: backend)
        let members = 32
        let rows = (1...members).map { row("member \($0)") }
        // Every member inserts its own row; one also updates the stored row at a stale revision.
        let outcomes = await withTaskGroup(of: (Int, StoreError?).self) { group in
            for (index, new) in rows.enumerated() {
                group.addTask {
                    var changes = [EntityChanges(entity: items, inserts: [new])]
                    if index == members / 2 {
                        var stale = stored
                        stale.revision = 7
                        stale.values[0] = .text("stale")
                        changes.append(
                            EntityChanges(
                                entity: items,
                                updates: [RowUpdate(row: stale, changedColumns: [0], checksRevision: true)]
                            )
                        )
                    }
                    do throws(StoreError) {
                        try await backend.apply(ChangeBatch(entities: changes))
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            var outcomes: [Int: StoreError?] = [:]
            for await (index, error) in group { outcomes[index] = error }
            return outcomes
        }
        for index in 0..<members {
            let error = outcomes[index] ?? nil
            if index == members / 2 {
                try expect(error?.code == .conflict, "the stale member failed with \(String(describing: error))")
            } else {
                try expect(error == nil, "member \(index) failed with \(String(describing: error))")
            }
        }
        let found = Set(try await backend.fetch(ids: rows.map(\.id), of: items).map(\.id))
        let expected = Set(rows.enumerated().filter { $0.offset != members / 2 }.map(\.element.id))
        try expect(found == expected, "after concurrent commits \(found.count) of \(expected.count) rows are stored")
        let current = try await backend.fetch(ids: [stored.id], of: items)
        try expect(
            current == [StoreRow(id: stored.id, revision: 1, values: stored.values)],
            "the conflicting member changed the stored row"
        )
    }

    static func counts(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        var random = SeededGenerator(seed: 0x5EED_C0DE_0000_0002)
        let data = (0..<200).map { _ in RandomData.row(using: &random) }
        try await insert(data, into: backend)
        let all = try await all(backend)
        for round in 0..<150 {
            let query = RandomData.query(entity: items, using: &random)
            var excluded: [UUID] = []
            if round % 2 == 1 {
                for row in all where random.next() % 4 == 0 { excluded.append(row.id) }
                excluded += [uuid(), uuid()]
                if let first = excluded.first { excluded.append(first) }
            }
            let skipped = Set(excluded)
            let expected = query.slicedCount(all.count(where: { !skipped.contains($0.id) && query.matches($0) }))
            let found = try await backend.count(query, excluding: excluded)
            try expect(
                found == expected,
                "count \(round) differs: \(query.predicate), limit \(query.limit.map(String.init) ?? "none"), "
                    + "offset \(query.offset), \(excluded.count) excluded: \(found) vs \(expected) in memory"
            )
            if excluded.isEmpty {
                let fetched = try await backend.fetch(query).count
                try expect(found == fetched, "count \(round) is \(found) but fetch returns \(fetched) rows")
            }
        }
    }

    static func observation(_ backend: any StoreBackend) async throws {
        try await backend.migrate(to: model)
        let stream = backend.committedChanges()
        let batches = [[row("one")], [row("two"), row("three")], [row("four")]]
        for rows in batches.prefix(2) {
            try await insert(rows, into: backend)
        }
        do {
            // A failing batch is not observed.
            try await insert([batches[0][0]], into: backend)
            throw ConformanceFailure("a duplicate insert was accepted")
        } catch is StoreError {}
        try await insert(batches[2], into: backend)
        var iterator = stream.makeAsyncIterator()
        for (index, rows) in batches.enumerated() {
            guard let batch = await iterator.next() else {
                throw ConformanceFailure("the stream ended after \(index) batches")
            }
            let observed = batch.entities.flatMap(\.inserts).map(\.id)
            try expect(
                Set(observed) == Set(rows.map(\.id)) && observed.count == rows.count,
                "batch \(index) was observed as \(observed.count) other rows"
            )
        }
    }
}
