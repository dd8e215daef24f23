import Foundation
import GRDBSQLite
import Hummingbird
import NIOCore

/// `POST /v2/vehicles` for the write-heavy mix: one read-write connection on a serial queue of its own (so that
/// `fsync` never blocks a thread that serves reads), each vehicle inserted in its own durable transaction
/// (`synchronous = FULL`) after checking that its plate is free.
// @unchecked Sendable: the connection and its statements are touched only on `queue`, a serial queue, so no two
// threads use them at once.
final class FloorWriter: @unchecked Sendable {
    // Touched only on `queue`.
    private var database: OpaquePointer?
    private var plateTaken: OpaquePointer?
    private var insert: OpaquePointer?
    private var created: OpaquePointer?
    private let queue = DispatchQueue(label: "fleetd-floor.writer")

    init(path: String) throws(FloorError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK,
            sqlite3_exec(database, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", nil, nil, nil) == SQLITE_OK
        else {
            throw FloorError(message: database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")
        }
        sqlite3_busy_timeout(database, 5000)
        plateTaken = try prepare("SELECT 1 FROM vehicles WHERE plate = ?")
        insert = try prepare(
            """
            INSERT INTO vehicles (id, revision, plate, make, model, modelYear, flagged, lastServiced, apiRevision)
            VALUES (?, 1, ?, ?, ?, ?, 0, ?, 1)
            """
        )
        created = try prepare(
            "SELECT id, plate, make, model, modelYear, flagged, lastServiced, apiRevision FROM vehicles WHERE id = ?"
        )
    }

    private func prepare(_ sql: String) throws(FloorError) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else { throw FloorError(message: String(cString: sqlite3_errmsg(database))) }
        return statement
    }

    deinit {
        for statement in [plateTaken, insert, created] { sqlite3_finalize(statement) }
        sqlite3_close(database)
    }

    /// A vehicle as a v2 create gives it.
    struct Input: Decodable, Sendable {
        struct Maintenance: Decodable, Sendable {
            var lastServiced: String?
        }
        var plate: String
        var make: String
        var model: String
        var modelYear: Int
        var maintenance: Maintenance?
    }

    func create(_ input: Input) async -> Response {
        guard !input.plate.isEmpty, input.plate.utf8.count <= 16, !input.make.isEmpty, !input.model.isEmpty,
            (1886...2100).contains(input.modelYear)
        else { return FloorResponse.problem(.unprocessableContent, "the vehicle breaks a rule") }
        var lastServiced: Double?
        if let text = input.maintenance?.lastServiced {
            guard let date = Self.date(text), date <= Date() else {
                return FloorResponse.problem(.unprocessableContent, "maintenance.lastServiced is not a past time")
            }
            lastServiced = date.timeIntervalSince1970
        }
        let serviced = lastServiced
        return await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: self.write(input, lastServiced: serviced))
            }
        }
    }

    private static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    private func write(_ input: Input, lastServiced: Double?) -> Response {
        guard let plateTaken, let insert, let created else { return FloorResponse.unavailable(nil) }
        defer {
            for statement in [plateTaken, insert, created] {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
        }
        guard sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
            return FloorResponse.unavailable(nil)
        }
        bind(input.plate, to: plateTaken, at: 1)
        if sqlite3_step(plateTaken) == SQLITE_ROW {
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
            return FloorResponse.problem(.conflict, "another vehicle has this plate")
        }
        var id = UUID().uuid
        withUnsafeBytes(of: &id) { _ = sqlite3_bind_blob(insert, 1, $0.baseAddress, 16, transient) }
        bind(input.plate, to: insert, at: 2)
        bind(input.make, to: insert, at: 3)
        bind(input.model, to: insert, at: 4)
        sqlite3_bind_int64(insert, 5, Int64(input.modelYear))
        if let lastServiced { sqlite3_bind_double(insert, 6, lastServiced) } else { sqlite3_bind_null(insert, 6) }
        guard sqlite3_step(insert) == SQLITE_DONE, sqlite3_exec(database, "COMMIT", nil, nil, nil) == SQLITE_OK else {
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
            return FloorResponse.unavailable(nil)
        }
        withUnsafeBytes(of: &id) { _ = sqlite3_bind_blob(created, 1, $0.baseAddress, 16, transient) }
        guard sqlite3_step(created) == SQLITE_ROW else { return FloorResponse.unavailable(nil) }
        var writer = FloorJSONWriter(capacity: 256, cutoff: FloorCutoff.now())
        writer.vehicle(created)
        return FloorResponse.created(writer.buffer, id: id)
    }

    private func bind(_ text: String, to statement: OpaquePointer, at index: Int32) {
        var text = text
        text.withUTF8 { _ = sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient) }
    }
}
