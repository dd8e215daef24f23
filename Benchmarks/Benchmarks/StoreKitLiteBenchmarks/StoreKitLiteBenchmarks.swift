import Benchmark
import Foundation
import GRDB
import GRDBSQLite
import StoreKitLite
import StoreKitLiteSQLite

// StoreKitLite on SQLite versus the raw SQLite C API and GRDB's statement API, same schema, same file settings
// (WAL, synchronous FULL), same run. Run from the repository root:
//   cd Benchmarks && swift package --disable-sandbox --scratch-path ../.build-bench-storekitlite benchmark \
//       --target StoreKitLiteBenchmarks

struct Vehicle: StoreKitLite.Record {
    var id: ID
    var plate = ""
    var make = ""
    var modelYear = 0
    var mileage: Double?
    var inService = true

    init(id: ID) { self.id = id }

    static let schema = RecordSchema<Vehicle>(
        "vehicles",
        StoreKitLite.Column("plate", \.plate),
        StoreKitLite.Column("make", \.make),
        StoreKitLite.Column("modelYear", \.modelYear),
        StoreKitLite.Column("mileage", \.mileage),
        StoreKitLite.Column("inService", \.inService)
    )
}

/// The plain value a fetch-transform produces.
struct VehicleSummary: Sendable {
    var plate: String
    var make: String
    var modelYear: Int
    var mileage: Double?
}

let rowCount = 100_000
let makes = ["Volkswagen", "Škoda", "Toyota", "Renault", "Fiat", "Volvo"]
let sources: [(plate: String, make: String, year: Int, mileage: Double?)] = (0..<rowCount).map { index in
    ("B-AB \(index)", makes[index % makes.count], 1990 + index % 35, index % 4 == 0 ? nil : Double(index) * 1.5)
}
let model = StoreModel(Vehicle.self)
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
let createTable = """
    CREATE TABLE vehicles (id BLOB PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, "plate" TEXT NOT NULL,
    "make" TEXT NOT NULL, "modelYear" INTEGER NOT NULL, "mileage" REAL, "inService" INTEGER NOT NULL)
    STRICT, WITHOUT ROWID
    """
let insertSQL = """
    INSERT INTO vehicles (id, revision, "plate", "make", "modelYear", "mileage", "inService")
    VALUES (?, 1, ?, ?, ?, ?, ?)
    """

func temporaryPath() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("skl-bench-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("store.sqlite").path
}

func remove(_ path: String) {
    try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
}

/// A raw connection set up as SQLiteBackend sets up its writer.
func openRaw(_ path: String) -> OpaquePointer? {
    var db: OpaquePointer?
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", nil, nil, nil)
    return db
}

func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            _ = sqlite3_bind_text(statement, index, $0, Int32(buffer.count), transient)
        }
    }
}

func rawInsert(_ db: OpaquePointer?, count: Int, idBase: UInt64) {
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, insertSQL, -1, &statement, nil)
    sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
    for index in 0..<count {
        var id = (idBase.bigEndian, UInt64(index).bigEndian)
        withUnsafeBytes(of: &id) { _ = sqlite3_bind_blob(statement, 1, $0.baseAddress, 16, transient) }
        let source = sources[index % sources.count]
        bindText(statement, 2, source.plate)
        bindText(statement, 3, source.make)
        sqlite3_bind_int64(statement, 4, Int64(source.year))
        if let mileage = source.mileage {
            sqlite3_bind_double(statement, 5, mileage)
        } else {
            sqlite3_bind_null(statement, 5)
        }
        sqlite3_bind_int64(statement, 6, 1)
        sqlite3_step(statement)
        sqlite3_reset(statement)
    }
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    sqlite3_finalize(statement)
}

/// A file with 100k vehicles written by StoreKitLite, for the read benchmarks.
func populatedStore(
    execution: SQLiteBackend.Execution = .suspending
) async throws -> (String, PersistenceService) {
    let path = temporaryPath()
    let service = try await PersistenceService.open(
        model: model,
        backend: SQLiteBackend(path: path, execution: execution)
    )
    try await service.create(Vehicle.self, from: sources, options: .saveAndPersist) { source, vehicle in
        vehicle.plate = source.plate
        vehicle.make = source.make
        vehicle.modelYear = source.year
        vehicle.mileage = source.mileage
    }
    return (path, service)
}

/// How many times each read benchmark reads the 100k rows in one measurement.
let readRepetitions = 5

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        maxDuration: .seconds(10),
        maxIterations: 8
    )

    // MARK: - Create many

    Benchmark("Insert 100k: raw SQLite C API") { benchmark in
        let path = temporaryPath()
        let db = openRaw(path)
        sqlite3_exec(db, createTable, nil, nil, nil)
        benchmark.startMeasurement()
        rawInsert(db, count: rowCount, idBase: 1)
        benchmark.stopMeasurement()
        sqlite3_close(db)
        remove(path)
    }

    Benchmark("Insert 100k: GRDB statement API") { benchmark in
        let path = temporaryPath()
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: createTable)
        }
        benchmark.startMeasurement()
        try pool.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            for index in 0..<rowCount {
                let source = sources[index]
                var id = (UInt64(1).bigEndian, UInt64(index).bigEndian)
                let idData = withUnsafeBytes(of: &id) { Data($0) }
                try statement.execute(arguments: [idData, source.plate, source.make, source.year, source.mileage, true])
            }
        }
        benchmark.stopMeasurement()
        try pool.close()
        remove(path)
    }

    Benchmark("Insert 100k: StoreKitLite create(from:) saveAndPersist") { benchmark in
        let path = temporaryPath()
        let service = try await PersistenceService.open(model: model, backend: SQLiteBackend(path: path))
        benchmark.startMeasurement()
        try await service.create(Vehicle.self, from: sources, options: .saveAndPersist) { source, vehicle in
            vehicle.plate = source.plate
            vehicle.make = source.make
            vehicle.modelYear = source.year
            vehicle.mileage = source.mileage
        }
        benchmark.stopMeasurement()
        remove(path)
    }

    // MARK: - Fetch-transform

    // Each read benchmark reads the 100k rows `readRepetitions` times in one measurement, so that CPU time (10 ms
    // resolution) is not mostly rounding; both sides start with an open connection and a warm statement cache.
    Benchmark("Read 100k into plain values: raw SQLite C API") { benchmark in
        let (path, _) = try await populatedStore()
        var db: OpaquePointer?
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            db,
            #"SELECT id, revision, "plate", "make", "modelYear", "mileage", "inService" FROM vehicles ORDER BY id"#,
            -1,
            &statement,
            nil
        )
        benchmark.startMeasurement()
        for _ in 0..<readRepetitions {
            var summaries: [VehicleSummary] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                let plate = String(cString: sqlite3_column_text(statement, 2))
                let make = String(cString: sqlite3_column_text(statement, 3))
                let year = Int(sqlite3_column_int64(statement, 4))
                let mileage =
                    sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 5)
                summaries.append(VehicleSummary(plate: plate, make: make, modelYear: year, mileage: mileage))
            }
            sqlite3_reset(statement)
            blackHole(summaries)
        }
        benchmark.stopMeasurement()
        sqlite3_finalize(statement)
        sqlite3_close(db)
        remove(path)
    }

    for (execution, label) in [(SQLiteBackend.Execution.suspending, ""), (.callingThread, " (calling thread)")] {
        Benchmark("Read 100k into plain values: StoreKitLite fetch-transform\(label)") { benchmark in
            let (path, service) = try await populatedStore(execution: execution)
            // Warm-up, as the raw side's open and prepare: opens a reader connection and caches the statement.
            _ = try await service.fetch(Query<Vehicle>()) { $0.modelYear }
            benchmark.startMeasurement()
            for _ in 0..<readRepetitions {
                let summaries = try await service.fetch(Query<Vehicle>()) {
                    VehicleSummary(plate: $0.plate, make: $0.make, modelYear: $0.modelYear, mileage: $0.mileage)
                }
                blackHole(summaries)
            }
            benchmark.stopMeasurement()
            remove(path)
        }
    }

    // MARK: - One durable commit

    Benchmark("100 durable single-row commits: raw SQLite C API") { benchmark in
        let path = temporaryPath()
        let db = openRaw(path)
        sqlite3_exec(db, createTable, nil, nil, nil)
        benchmark.startMeasurement()
        for index in 0..<100 {
            rawInsert(db, count: 1, idBase: UInt64(index + 10))
        }
        benchmark.stopMeasurement()
        sqlite3_close(db)
        remove(path)
    }

    for (execution, label) in [(SQLiteBackend.Execution.suspending, ""), (.callingThread, " (calling thread)")] {
        Benchmark("100 durable single-row commits: StoreKitLite create saveAndPersist\(label)") { benchmark in
            let path = temporaryPath()
            let service = try await PersistenceService.open(
                model: model,
                backend: SQLiteBackend(path: path, execution: execution)
            )
            benchmark.startMeasurement()
            for index in 0..<100 {
                try await service.create(Vehicle.self, options: .saveAndPersist) {
                    $0.plate = sources[index].plate
                    $0.make = sources[index].make
                    $0.modelYear = sources[index].year
                }
            }
            benchmark.stopMeasurement()
            remove(path)
        }
    }
}
