import GRDBSQLite
import StoreKitLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only connection of its own on a store file, telling whether another connection (this backend's writer,
/// or any connection of another process) has committed to the file since the last reading. It never writes and
/// holds no transaction between readings, so it delays neither writers nor checkpoints.
///
/// A reading compares the header of the write-ahead log's index (the first bytes of the `-shm` file, which every
/// connection to the file shares and every commit rewrites, in the layout SQLite documents for its WAL-index) with
/// the one seen last: a few loads from shared memory, where SQLite's `PRAGMA data_version` starts and ends a read
/// transaction with two file-lock calls. When the header cannot be read that way (no `-shm` file, a header being
/// rewritten at that instant, a layout this code does not know) the reading falls back to `data_version`. Either
/// way ``read()`` returns a generation number that grows whenever what was seen differs from the last reading, so a
/// change of method only ever reads as a change.
///
/// Not thread-safe: ``SQLiteBackend`` uses it under a lock.
final class SQLiteDataVersion {
    /// What one reading saw.
    private enum Observation: Equatable {
        /// The WAL-index header's 48 bytes, as six words.
        case header(UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        /// `PRAGMA data_version`.
        case dataVersion(Int64)
    }

    private let connection: OpaquePointer
    private let statement: OpaquePointer
    /// The first page of the `-shm` file, mapped read-only; `nil` until the first reading found it, or when there
    /// is none to map.
    private var index: UnsafeRawPointer?
    /// Whether mapping the index was tried (it is tried once, after the first `data_version` reading).
    private var triedMapping = false
    private var last: Observation?
    private var generation: Int64 = 0

    /// The WAL-index header's version field that this layout is written for (every SQLite since 3.7.0).
    private static let headerVersion: UInt32 = 3_007_000
    /// Two copies of the 48-byte header.
    private static let headerSize = 48
    private static let mappedSize = 2 * headerSize

    init(path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let connection = opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite could not allocate a connection"
            sqlite3_close_v2(opened)
            throw StoreError(.cannotOpen, detail: "open a connection to read the data version", reason: reason)
        }
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        var prepared: OpaquePointer?
        guard
            sqlite3_prepare_v3(connection, "PRAGMA data_version", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
                == SQLITE_OK,
            let statement = prepared
        else {
            let reason = String(cString: sqlite3_errmsg(connection))
            sqlite3_close_v2(connection)
            throw StoreError(.backend, detail: "prepare PRAGMA data_version", reason: reason)
        }
        self.connection = connection
        self.statement = statement
    }

    deinit {
        // Unmapped before the connection closes: while it is open, its shared lock on the index keeps any other
        // connection from truncating the `-shm` file under the mapping.
        if let index { munmap(UnsafeMutableRawPointer(mutating: index), Self.mappedSize) }
        sqlite3_finalize(statement)
        sqlite3_close_v2(connection)
    }

    /// Whether readings read the shared index's header (rather than `data_version`).
    var readsSharedIndex: Bool { index != nil }

    /// A number that differs from the one returned by the previous reading when a commit has reached the file
    /// since then (and, rarely, when none has: a checkpoint that restarts the log, or a change of method).
    func read() throws(StoreError) -> Int64 {
        var observation = readHeader()
        if observation == nil, index == nil, !triedMapping {
            // A first `data_version` reading opens the connection's view of the index, if the file has one; the
            // header read after it is as current as that reading, so the next reading can compare headers.
            _ = try readDataVersion()
            triedMapping = true
            index = Self.mapIndex(of: connection)
            observation = readHeader()
        }
        if observation == nil { observation = .dataVersion(try readDataVersion()) }
        if observation != last {
            last = observation
            generation += 1
        }
        return generation
    }

    private func readDataVersion() throws(StoreError) -> Int64 {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            throw StoreError(
                .backend,
                detail: "read PRAGMA data_version",
                reason: String(cString: sqlite3_errmsg(connection))
            )
        }
        return sqlite3_column_int64(statement, 0)
    }

    /// The WAL-index header, when both of its copies agree and it is initialised in the known layout.
    ///
    /// A writer rewrites the second copy, then (after a memory barrier) the first; reading the first, then (after a
    /// barrier) the second, and finding them equal means neither was being rewritten in between, as SQLite's own
    /// readers check. The loads race with another process's stores by design, as SQLite's own do; the fences keep
    /// the compiler and the processor from merging or reordering them across the two copies.
    private func readHeader() -> Observation? {
        guard let index else { return nil }
        // A header being rewritten at this instant is read again, as SQLite's readers do, before giving up.
        for _ in 0..<3 {
            if let header = Self.header(at: index) { return header }
        }
        return nil
    }

    private static func header(at index: UnsafeRawPointer) -> Observation? {
        atomicMemoryFence(ordering: .acquiring)
        let first = words(at: index)
        atomicMemoryFence(ordering: .acquiring)
        let second = words(at: index + headerSize)
        atomicMemoryFence(ordering: .acquiring)
        guard first == second else { return nil }
        // Offset 0: the layout's version; offset 12: `isInit`, set once the header holds a valid state (the fields
        // are in the machine's byte order).
        var copy = first
        let (version, isInitialised) = withUnsafeBytes(of: &copy) {
            ($0.load(fromByteOffset: 0, as: UInt32.self), $0.load(fromByteOffset: 12, as: UInt8.self) == 1)
        }
        guard version == headerVersion, isInitialised else { return nil }
        return .header(first.0, first.1, first.2, first.3, first.4, first.5)
    }

    private static func words(at base: UnsafeRawPointer) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        (
            base.load(fromByteOffset: 0, as: UInt64.self),
            base.load(fromByteOffset: 8, as: UInt64.self),
            base.load(fromByteOffset: 16, as: UInt64.self),
            base.load(fromByteOffset: 24, as: UInt64.self),
            base.load(fromByteOffset: 32, as: UInt64.self),
            base.load(fromByteOffset: 40, as: UInt64.self)
        )
    }

    /// Maps the start of the `-shm` file that SQLite uses for `connection`'s database read-only, or returns `nil`
    /// when there is no such file yet (not in WAL mode) or it is too short to hold the header.
    private static func mapIndex(of connection: OpaquePointer) -> UnsafeRawPointer? {
        // The name SQLite itself resolved (symbolic links followed), so the `-shm` file is the one it uses.
        guard let name = sqlite3_db_filename(connection, "main"), name.pointee != 0 else { return nil }
        let path = String(cString: name) + "-shm"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= mappedSize else { return nil }
        guard let mapped = mmap(nil, mappedSize, PROT_READ, MAP_SHARED, descriptor, 0),
            mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else { return nil }
        return UnsafeRawPointer(mapped)
    }
}
