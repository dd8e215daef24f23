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

    /// Binds a value to be stored in a column of `type`, converted by ``stored(_:as:column:)``.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/backend`` when the value's storage class does not fit the column.
    mutating func bind(_ value: StoreValue, storedAs type: ColumnType, column: String) throws(StoreError) -> String {
        switch try Self.stored(value, as: type, column: column) {
        case .null: bindNull()
        case .integer(let integer): bind(integer)
        case .real(let real): bind(real)
        case .text(let text): bind(text)
        case .blob(let bytes): bind(bytes: bytes)
        }
    }

    /// The value to store in a column of `type`, converted as SQLite's `STRICT` tables do: an integer stored in a
    /// real column becomes a real, a real with an exact integer value stored in an integer column becomes an
    /// integer, and a real that is not a number is stored as `NULL` (SQLite never stores NaN). Every write path
    /// (bound parameters and `COPY`) converts through this one function.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/backend`` when the value's storage class does not fit the column.
    static func stored(_ value: StoreValue, as type: ColumnType, column: String) throws(StoreError) -> StoreValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.integer, .integer): return value
        case (.integer(let integer), .real): return .real(Double(integer))
        case (.real(let real), .real): return real.isNaN ? .null : value
        case (.real(let real), .integer):
            if let integer = Int64(exactly: real) { return .integer(integer) }
        case (.text, .text), (.blob, .blob): return value
        default: break
        }
        throw StoreError(.backend, detail: "a value of \(column) does not fit its column type \(type.rawValue)")
    }
}
