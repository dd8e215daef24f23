// A writer for StoreKitLite's crash tests: the process the test kills with SIGKILL at random moments.
//
//   storekitlite-crash-writer write STORE [TASKS]   commits batches of 10 records, one `saveAndPersist` each, from
//                                                   TASKS concurrent tasks (default 1), and prints `ack N` (flushed)
//                                                   once batch N is committed, until killed
//   storekitlite-crash-writer verify STORE FILE     reopens the store and checks it: every batch listed in FILE (one
//                                                   number per line) has all its records with their exact values,
//                                                   and no batch is partly there; prints `ok` (exit 0) or
//                                                   `fail REASON` (exit 1)
//
// STORE is a SQLite file path or a postgres:// URL.

import Foundation
import ModelKit
import StoreKitLite
import StoreKitLitePostgres
import StoreKitLiteSQLite
import Synchronization

struct CrashItem: Record, Equatable {
    var id: ModelID<CrashItem>
    var batch = 0
    var index = 0
    var payload = ""
    var weight = 0.0

    init(id: ModelID<CrashItem>) {
        self.id = id
    }

    static let schema = RecordSchema<CrashItem>(
        "crash_items",
        Column("batch", \.batch),
        Column("index", \.index),
        Column("payload", \.payload),
        Column("weight", \.weight)
    )

    static let perBatch = 10

    /// The values record `index` of `batch` is written with.
    static func expected(batch: Int, index: Int) -> (payload: String, weight: Double) {
        (
            String(repeating: "\(batch)-\(index);", count: 1 + (batch * 7 + index) % 40),
            Double(batch) + Double(index) / 16
        )
    }
}

func backend(for store: String) throws -> any StoreBackend {
    if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
        var configuration = try PostgresBackend.Configuration(url: store)
        configuration.changeFeed = .thisProcess
        return PostgresBackend(configuration: configuration)
    }
    return SQLiteBackend(path: store)
}

/// Hands out batch numbers to the writing tasks, each once.
final class BatchNumbers: Sendable {
    private let next: Atomic<Int>

    init(first: Int) {
        next = Atomic(first)
    }

    func take() -> Int {
        next.add(1, ordering: .relaxed).oldValue
    }
}

func write(_ store: String, tasks: Int) async throws {
    let service = try await PersistenceService.open(model: StoreModel(CrashItem.self), backend: try backend(for: store))
    let existing = try await service.fetch(Query<CrashItem>())
    let next = BatchNumbers(first: (existing.map(\.batch).max() ?? 0) + 1)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                while true {
                    let number = next.take()
                    try await service.create(
                        CrashItem.self,
                        from: Array(0..<CrashItem.perBatch),
                        options: .saveAndPersist
                    ) { index, item in
                        let values = CrashItem.expected(batch: number, index: index)
                        item.batch = number
                        item.index = index
                        item.payload = values.payload
                        item.weight = values.weight
                    }
                    FileHandle.standardOutput.write(Data("ack \(number)\n".utf8))
                }
            }
        }
        try await group.waitForAll()
    }
}

func verify(_ store: String, acknowledged: Set<Int>) async throws -> String? {
    let backend = try backend(for: store)
    let service = try await PersistenceService.open(model: StoreModel(CrashItem.self), backend: backend)
    defer { Task { try? await backend.close() } }
    let items = try await service.fetch(Query<CrashItem>())
    let batches = Dictionary(grouping: items, by: \.batch)
    for number in acknowledged.sorted() where batches[number] == nil {
        return "acknowledged batch \(number) is missing"
    }
    for (number, records) in batches {
        guard records.count == CrashItem.perBatch else {
            return "batch \(number) is partly there: \(records.count) of \(CrashItem.perBatch) records"
        }
        for record in records {
            let values = CrashItem.expected(batch: number, index: record.index)
            guard record.payload == values.payload, record.weight == values.weight else {
                return "record \(record.index) of batch \(number) has other values than were written"
            }
        }
    }
    return nil
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
    case (3, "write"), (4, "write"):
        try await write(arguments[2], tasks: arguments.count == 4 ? max(1, Int(arguments[3]) ?? 1) : 1)
    case (4, "verify"):
        let listed = try String(contentsOfFile: arguments[3], encoding: .utf8)
        let acknowledged = Set(listed.split(whereSeparator: \.isNewline).compactMap { Int($0) })
        if let failure = try await verify(arguments[2], acknowledged: acknowledged) {
            print("fail \(failure)")
            exit(1)
        }
        print("ok")
    default:
        FileHandle.standardError.write(
            Data("usage: storekitlite-crash-writer write STORE [TASKS] | verify STORE FILE\n".utf8)
        )
        exit(2)
    }
} catch {
    print("fail \(error)")
    exit(1)
}
