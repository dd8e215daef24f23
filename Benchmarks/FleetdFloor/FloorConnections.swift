import Foundation
import GRDBSQLite
import Hummingbird

/// One SQLite connection per thread, made on the thread's first request and kept: handlers never suspend while
/// they use it, so no lock and no pool is needed.
final class FloorConnections: Sendable {
    let path: String
    private let key: pthread_key_t

    init(path: String) {
        self.path = path
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// Why the database cannot be read, or `nil` when it can.
    func check() -> String? {
        do {
            _ = try FloorConnection(path: path)
            return nil
        } catch {
            return error.message
        }
    }

    /// This thread's connection. A thread whose connection cannot open gets one that answers 500.
    func current() -> FloorConnection {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<FloorConnection>.fromOpaque(pointer).takeUnretainedValue()
        }
        let connection: FloorConnection
        do {
            connection = try FloorConnection(path: path)
        } catch {
            return FloorConnection(failed: error)
        }
        // Kept for the life of the thread (the server's threads live as long as the process).
        pthread_setspecific(key, Unmanaged.passRetained(connection).toOpaque())
        return connection
    }
}

struct FloorError: Error {
    var message: String
}

/// A read-only connection and its two statements, prepared once and reset after each use.
final class FloorConnection {
    private var database: OpaquePointer?
    private var byID: OpaquePointer?
    private var firstPage: OpaquePointer?
    private var nextPage: OpaquePointer?
    private let failure: FloorError?

    private static let columns = "id, plate, make, model, modelYear, flagged, lastServiced, apiRevision"

    init(path: String) throws(FloorError) {
        failure = nil
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK else {
            throw FloorError(message: database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")
        }
        byID = try prepare("SELECT \(Self.columns) FROM vehicles WHERE id = ?")
        firstPage = try prepare("SELECT \(Self.columns) FROM vehicles ORDER BY plate LIMIT ?")
        nextPage = try prepare("SELECT \(Self.columns) FROM vehicles WHERE plate > ? ORDER BY plate LIMIT ?")
    }

    init(failed error: any Error) {
        failure = (error as? FloorError) ?? FloorError(message: "\(error)")
    }

    private func prepare(_ sql: String) throws(FloorError) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else { throw FloorError(message: String(cString: sqlite3_errmsg(database))) }
        return statement
    }

    deinit {
        for statement in [byID, firstPage, nextPage] { sqlite3_finalize(statement) }
        sqlite3_close(database)
    }

    /// `GET /v2/vehicles/{id}`.
    func vehicle(_ id: FloorID) -> Response {
        guard failure == nil, let statement = byID else { return FloorResponse.unavailable(failure) }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var bytes = id.bytes
        withUnsafeBytes(of: &bytes) { _ = sqlite3_bind_blob(statement, 1, $0.baseAddress, 16, transient) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            var writer = FloorJSONWriter(capacity: 256, cutoff: FloorCutoff.now())
            writer.vehicle(statement)
            return FloorResponse.json(writer.buffer, eTag: .revision(sqlite3_column_int64(statement, 7)))
        case SQLITE_DONE:
            return FloorResponse.problem(.notFound, "no vehicle with this ID")
        default:
            return FloorResponse.unavailable(FloorError(message: String(cString: sqlite3_errmsg(database))))
        }
    }

    /// `GET /v2/vehicles?limit=…&cursor=…`: up to `limit` vehicles in plate order after `after`, and the cursor of
    /// the next page when more follow (one more row is read to know).
    func page(after: [UInt8]?, limit: Int) -> Response {
        guard failure == nil, let statement = after == nil ? firstPage : nextPage else {
            return FloorResponse.unavailable(failure)
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var index: Int32 = 1
        if let after {
            after.withUnsafeBytes { _ = sqlite3_bind_text(statement, 1, $0.baseAddress, Int32($0.count), transient) }
            index = 2
        }
        sqlite3_bind_int64(statement, index, Int64(limit + 1))
        var writer = FloorJSONWriter(capacity: 224 * limit + 64, cutoff: FloorCutoff.now())
        writer.raw("{\"items\":[")
        var count = 0
        var lastPlate: [UInt8] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                return FloorResponse.unavailable(FloorError(message: String(cString: sqlite3_errmsg(database))))
            }
            if count == limit {
                // A row after the page: the page continues after its last plate.
                writer.raw("],\"nextCursor\":")
                writer.cursor(after: lastPlate)
                writer.raw("}")
                return FloorResponse.json(writer.buffer, eTag: .digest)
            }
            if count > 0 { writer.raw(",") }
            writer.vehicle(statement)
            count += 1
            if count == limit {
                lastPlate = Array(
                    UnsafeRawBufferPointer(
                        start: sqlite3_column_text(statement, 1),
                        count: Int(sqlite3_column_bytes(statement, 1))
                    )
                )
            }
        }
        writer.raw("]}")
        return FloorResponse.json(writer.buffer, eTag: .digest)
    }
}

/// SQLite copies the bound bytes.
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
