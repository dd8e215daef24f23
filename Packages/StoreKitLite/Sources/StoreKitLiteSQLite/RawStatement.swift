import Foundation
import GRDBSQLite
import StoreKitLite

/// Binding and reading values through the raw SQLite statement handle of a GRDB prepared statement.
enum RawStatement {
    /// SQLite copies the bound bytes before the bind call returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ value: StoreValue, at index: Int32, to statement: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let value):
            return sqlite3_bind_int64(statement, index, value)
        case .real(let value):
            return sqlite3_bind_double(statement, index, value)
        case .text(let value):
            // Native strings hand out their UTF-8 storage without a copy; bridged ones are copied once.
            if let result = value.utf8.withContiguousStorageIfAvailable({ bind(utf8: $0, at: index, to: statement) }) {
                return result
            }
            var text = value
            return text.withUTF8 { bind(utf8: $0, at: index, to: statement) }
        case .blob(let data):
            return bind(bytes: data, at: index, to: statement)
        }
    }

    static func bind(utf8 buffer: UnsafeBufferPointer<UInt8>, at index: Int32, to statement: OpaquePointer) -> Int32 {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return sqlite3_bind_text(statement, index, "", 0, transient)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            sqlite3_bind_text(statement, index, $0, Int32(buffer.count), transient)
        }
    }

    static func bind(bytes: Data, at index: Int32, to statement: OpaquePointer) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(statement, index, 0)
            }
            return sqlite3_bind_blob(statement, index, base, Int32(buffer.count), transient)
        }
    }

    static func bind(id: UUID, at index: Int32, to statement: OpaquePointer) -> Int32 {
        var bytes = id.uuid
        return withUnsafeBytes(of: &bytes) { buffer in
            sqlite3_bind_blob(statement, index, buffer.baseAddress, 16, transient)
        }
    }

    static func value(at index: Int32, of statement: OpaquePointer) -> StoreValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            return .text(text(at: index, of: statement))
        case SQLITE_BLOB:
            return .blob(blob(at: index, of: statement))
        default:
            return .null
        }
    }

    /// A text column as UTF-8 (ill-formed bytes repaired, as `String(decoding:as:)` does).
    static func text(at index: Int32, of statement: OpaquePointer) -> String {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard let pointer = sqlite3_column_text(statement, index), count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    static func blob(at index: Int32, of statement: OpaquePointer) -> Data {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard let pointer = sqlite3_column_blob(statement, index), count > 0 else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    static func id(at index: Int32, of statement: OpaquePointer) -> UUID? {
        guard sqlite3_column_bytes(statement, index) == 16, let pointer = sqlite3_column_blob(statement, index) else {
            return nil
        }
        return UUID(uuid: UnsafeRawPointer(pointer).loadUnaligned(as: uuid_t.self))
    }
}
