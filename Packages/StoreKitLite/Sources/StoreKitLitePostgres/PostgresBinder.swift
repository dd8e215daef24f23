import Foundation
import PostgresNIO
import StoreKitLite

/// Collects bound parameters for one statement and hands out their placeholders (`$1`, `$2`, …). Values are never
/// spliced into SQL text.
struct PostgresBinder {
    private(set) var bindings = PostgresBindings()

    var count: Int { bindings.count }

    private mutating func next() -> String {
        "$\(bindings.count)"
    }

    mutating func bind(_ value: Int64) -> String {
        bindings.append(value)
        return next()
    }

    mutating func bind(_ value: Double) -> String {
        bindings.append(value)
        return next()
    }

    mutating func bind(_ value: String) -> String {
        bindings.append(value)
        return next()
    }

    mutating func bind(_ value: UUID) -> String {
        bindings.append(value)
        return next()
    }

    mutating func bind(_ value: [UUID]) -> String {
        bindings.append(value)
        return next()
    }

    mutating func bind(bytes value: Data) -> String {
        bindings.append(ByteBuffer(bytes: value))
        return next()
    }

    mutating func bindNull() -> String {
        bindings.appendNull()
        return next()
    }

    /// Binds a value to be stored in a column of `type`, converting as SQLite's `STRICT` tables do: an integer
    /// stored in a real column becomes a real, a real with an exact integer value stored in an integer column
    /// becomes an integer, and a real that is not a number is stored as `NULL` (SQLite never stores NaN).
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/backend`` when the value's storage class does not fit the column.
    mutating func bind(_ value: StoreValue, storedAs type: ColumnType, column: String) throws(StoreError) -> String {
        switch (value, type) {
        case (.null, _): return bindNull()
        case (.integer(let integer), .integer): return bind(integer)
        case (.integer(let integer), .real): return bind(Double(integer))
        case (.real(let real), .real): return real.isNaN ? bindNull() : bind(real)
        case (.real(let real), .integer):
            if let integer = Int64(exactly: real) { return bind(integer) }
        case (.text(let text), .text): return bind(text)
        case (.blob(let bytes), .blob): return bind(bytes: bytes)
        default: break
        }
        throw StoreError(.backend, detail: "a value of \(column) does not fit its column type \(type.rawValue)")
    }
}
