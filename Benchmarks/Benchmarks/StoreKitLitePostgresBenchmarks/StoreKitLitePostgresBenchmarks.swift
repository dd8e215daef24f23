import Benchmark
import Foundation
import Logging
import NIOCore
import PostgresNIO
import StoreKitLite
import StoreKitLitePostgres

// StoreKitLite on PostgreSQL versus raw postgres-nio (COPY FROM STDIN and multi-row INSERTs for writes, a plain
// query for reads), same table, same server, same run. The server comes from STOREKITLITE_POSTGRES_URL; without it
// nothing runs. With a throwaway server, from the repository root:
//   Scripts/postgres run -- bash -c 'cd Benchmarks && swift package --disable-sandbox \
//       --scratch-path ../.build-bench benchmark --target StoreKitLitePostgresBenchmarks'

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
let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
let columnNames = ["id", "revision", "plate", "make", "modelYear", "mileage", "inService"]
let quotedColumns = columnNames.map { "\"\($0)\"" }.joined(separator: ", ")

/// The server, or `nil` (and the reason printed) without STOREKITLITE_POSTGRES_URL.
let server: PostgresBackend.Configuration? = {
    guard let url = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"], !url.isEmpty else {
        print("StoreKitLitePostgresBenchmarks: STOREKITLITE_POSTGRES_URL is not set; nothing to measure")
        return nil
    }
    do {
        return try PostgresBackend.Configuration(url: url)
    } catch {
        print("StoreKitLitePostgresBenchmarks: STOREKITLITE_POSTGRES_URL is not a PostgreSQL URL: \(error)")
        return nil
    }
}()

/// The `index`th of a run's IDs: a random high half and a counter, so that, like StoreKitLite's version 7 UUIDs,
/// the IDs of one run grow and land at the right edge of the primary key's index.
func sequentialID(_ base: UInt64, _ index: Int) -> UUID {
    UUID(uuid: unsafeBitCast((base.bigEndian, UInt64(index).bigEndian), to: uuid_t.self))
}

/// A fresh schema name, so that every measurement writes into an empty table.
func freshSchema() -> String {
    "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
}

/// One raw connection to the server (no pool), as a hand-written client would use.
func rawConnection(_ server: PostgresBackend.Configuration) async throws -> PostgresConnection {
    try await PostgresConnection.connect(
        configuration: .init(
            host: server.host,
            port: server.port,
            username: server.username,
            password: server.password,
            database: server.database,
            tls: .disable
        ),
        id: 1,
        logger: silent
    )
}

/// The table StoreKitLite's migration creates for `Vehicle`, made by hand in a new schema.
func createRawTable(in schema: String, on connection: PostgresConnection) async throws {
    try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \"\(schema)\""), logger: silent)
    try await connection.query(
        PostgresQuery(
            unsafeSQL: """
                CREATE TABLE "\(schema)"."vehicles" (id uuid PRIMARY KEY NOT NULL, revision bigint NOT NULL,
                "plate" text COLLATE "C" NOT NULL, "make" text COLLATE "C" NOT NULL, "modelYear" bigint NOT NULL,
                "mileage" double precision, "inService" bigint NOT NULL)
                """
        ),
        logger: silent
    )
}

func dropSchema(_ schema: String, on connection: PostgresConnection) async throws {
    try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"), logger: silent)
}

/// A backend on the server, in `schema`, with the default change feed (every commit also appends to the log).
func backend(_ server: PostgresBackend.Configuration, schema: String) -> PostgresBackend {
    var configuration = server
    configuration.schema = schema
    return PostgresBackend(configuration: configuration)
}

// MARK: - COPY text format

let hexDigits = Array("0123456789abcdef".utf8)

extension ByteBuffer {
    mutating func writeUUIDText(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { writeInteger(UInt8(ascii: "-")) }
                writeInteger(hexDigits[Int(byte >> 4)])
                writeInteger(hexDigits[Int(byte & 0x0f)])
            }
        }
    }

    /// Text in COPY's text format: backslash, tab, newline and carriage return escaped.
    mutating func writeCopyText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 == 0x5c || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }) {
                writeBytes(utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case 0x5c: writeStaticString("\\\\")
                case 0x09: writeStaticString("\\t")
                case 0x0a: writeStaticString("\\n")
                case 0x0d: writeStaticString("\\r")
                default: writeInteger(byte)
                }
            }
        }
    }
}

/// Writes the 100k rows with one `COPY … FROM STDIN` (text format, the only one postgres-nio 1.33.2 offers), in
/// chunks of about 256 KiB.
func rawCopy(into schema: String, on connection: PostgresConnection) async throws {
    // postgres-nio quotes the table name as one identifier: the schema comes from the search path.
    try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \"\(schema)\""), logger: silent)
    try await connection.copyFrom(table: "vehicles", columns: columnNames, logger: silent) { writer in
        var buffer = ByteBuffer()
        buffer.reserveCapacity(300 * 1024)
        let base = UInt64.random(in: 0...UInt64.max)
        for (index, source) in sources.enumerated() {
            buffer.writeUUIDText(sequentialID(base, index))
            buffer.writeStaticString("\t1\t")
            buffer.writeCopyText(source.plate)
            buffer.writeStaticString("\t")
            buffer.writeCopyText(source.make)
            buffer.writeStaticString("\t")
            buffer.writeString(String(source.year))
            buffer.writeStaticString("\t")
            if let mileage = source.mileage {
                buffer.writeString(mileage.description)
            } else {
                buffer.writeStaticString("\\N")
            }
            buffer.writeStaticString("\t1\n")
            if buffer.readableBytes >= 256 * 1024 {
                try await writer.write(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(300 * 1024)
            }
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
    }
    try await connection.query("RESET search_path", logger: silent)
}

/// Writes the 100k rows in one transaction as multi-row `INSERT`s of `rowsPerStatement` rows with bound parameters.
func rawInsert(into schema: String, rowsPerStatement: Int, on connection: PostgresConnection) async throws {
    try await connection.withTransaction(logger: silent) { connection in
        let idBase = UInt64.random(in: 0...UInt64.max)
        var start = 0
        while start < sources.count {
            let end = min(start + rowsPerStatement, sources.count)
            var bindings = PostgresBindings(capacity: (end - start) * 6)
            var sql = "INSERT INTO \"\(schema)\".\"vehicles\" (\(quotedColumns)) VALUES "
            for index in start..<end {
                let source = sources[index]
                let base = bindings.count
                bindings.append(sequentialID(idBase, index))
                bindings.append(source.plate)
                bindings.append(source.make)
                bindings.append(Int64(source.year))
                if let mileage = source.mileage { bindings.append(mileage) } else { bindings.appendNull() }
                bindings.append(Int64(1))
                if index > start { sql += ", " }
                sql += "($\(base + 1), 1, $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5), $\(base + 6))"
            }
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: silent)
            start = end
        }
    }
}

/// Creates the 100k vehicles through StoreKitLite, in one `saveAndPersist`.
func storeKitLiteCreate(_ service: PersistenceService) async throws {
    try await service.create(Vehicle.self, from: sources, options: .saveAndPersist) { source, vehicle in
        vehicle.plate = source.plate
        vehicle.make = source.make
        vehicle.modelYear = source.year
        vehicle.mileage = source.mileage
    }
}

/// The store the read benchmarks share: 100k vehicles written once by StoreKitLite.
actor ReadStore {
    static let shared = ReadStore()
    private var opened: (schema: String, service: PersistenceService)?

    func open(_ server: PostgresBackend.Configuration) async throws -> (schema: String, service: PersistenceService) {
        if let opened { return opened }
        let schema = freshSchema()
        let service = try await PersistenceService.open(model: model, backend: backend(server, schema: schema))
        try await storeKitLiteCreate(service)
        opened = (schema, service)
        return (schema, service)
    }
}

/// How many times each read benchmark reads the 100k rows in one measurement.
let readRepetitions = 5

let benchmarks: @Sendable () -> Void = {
    guard let server else { return }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        maxDuration: .seconds(20),
        maxIterations: 6
    )

    // MARK: - Create many

    // Every measurement writes into a new, empty table in a new schema; the rows/s ratio is the inverse of the
    // wall-clock ratio (the server's work is in wall clock, not in this process's CPU time).
    Benchmark("Insert 100k: raw postgres-nio COPY FROM STDIN") { benchmark in
        let connection = try await rawConnection(server)
        let schema = freshSchema()
        try await createRawTable(in: schema, on: connection)
        benchmark.startMeasurement()
        try await rawCopy(into: schema, on: connection)
        benchmark.stopMeasurement()
        try await dropSchema(schema, on: connection)
        try await connection.close()
    }

    Benchmark("Insert 100k: raw postgres-nio multi-row INSERT (500 rows)") { benchmark in
        let connection = try await rawConnection(server)
        let schema = freshSchema()
        try await createRawTable(in: schema, on: connection)
        benchmark.startMeasurement()
        try await rawInsert(into: schema, rowsPerStatement: 500, on: connection)
        benchmark.stopMeasurement()
        try await dropSchema(schema, on: connection)
        try await connection.close()
    }

    Benchmark("Insert 100k: StoreKitLite create(from:) saveAndPersist") { benchmark in
        let schema = freshSchema()
        let service = try await PersistenceService.open(model: model, backend: backend(server, schema: schema))
        benchmark.startMeasurement()
        try await storeKitLiteCreate(service)
        benchmark.stopMeasurement()
        try await service.close()
        let connection = try await rawConnection(server)
        try await dropSchema(schema, on: connection)
        try await connection.close()
    }

    // MARK: - Fetch-transform

    // Both sides read the same 100k rows (written once by StoreKitLite) `readRepetitions` times in one measurement,
    // with the same SELECT (every column, ordered by ID), starting with an open connection.
    Benchmark("Read 100k into plain values: raw postgres-nio query") { benchmark in
        let (schema, _) = try await ReadStore.shared.open(server)
        let connection = try await rawConnection(server)
        let query = PostgresQuery(
            unsafeSQL: "SELECT \(quotedColumns) FROM \"\(schema)\".\"vehicles\" ORDER BY id ASC"
        )
        benchmark.startMeasurement()
        for _ in 0..<readRepetitions {
            var summaries: [VehicleSummary] = []
            for try await row in try await connection.query(query, logger: silent) {
                let cells = row.makeRandomAccess()
                summaries.append(
                    VehicleSummary(
                        plate: try cells[2].decode(String.self),
                        make: try cells[3].decode(String.self),
                        modelYear: Int(try cells[4].decode(Int64.self)),
                        mileage: try cells[5].decode(Double?.self)
                    )
                )
            }
            blackHole(summaries)
        }
        benchmark.stopMeasurement()
        try await connection.close()
    }

    Benchmark("Read 100k into plain values: StoreKitLite fetch-transform") { benchmark in
        let (_, service) = try await ReadStore.shared.open(server)
        // Warm-up, as the raw side's connect: opens a pooled connection.
        _ = try await service.fetch(Query<Vehicle>().limit(1)) { $0.modelYear }
        benchmark.startMeasurement()
        for _ in 0..<readRepetitions {
            let summaries = try await service.fetch(Query<Vehicle>()) {
                VehicleSummary(plate: $0.plate, make: $0.make, modelYear: $0.modelYear, mileage: $0.mileage)
            }
            blackHole(summaries)
        }
        benchmark.stopMeasurement()
    }
}
