public import Foundation

/// One column value as a store holds it: SQLite's storage classes, which PostgreSQL maps one to one.
///
/// Equality, hashing and ordering follow SQLite's rules exactly, so that a predicate evaluated in memory gives the
/// same answer as the same predicate run as SQL: `NULL` sorts before numbers, numbers (integer and real, compared
/// by value) before text, text before blobs; text compares byte by byte as UTF-8 (SQLite's `BINARY` collation),
/// so `"é"` precomposed and decomposed are different values, and `"Z" < "a"`.
public enum StoreValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// SQLite's ordering of two values of any storage class.
    public static func order(_ lhs: StoreValue, _ rhs: StoreValue) -> Ordering {
        switch (lhs, rhs) {
        case (.null, .null): return .same
        case (.null, _): return .ascending
        case (_, .null): return .descending
        case (.integer(let a), .integer(let b)): return a < b ? .ascending : (a == b ? .same : .descending)
        case (.real(let a), .real(let b)): return a < b ? .ascending : (a == b ? .same : .descending)
        case (.integer(let a), .real(let b)): return compare(integer: a, real: b)
        case (.real(let a), .integer(let b)): return compare(integer: b, real: a).reversed
        case (.integer, _), (.real, _): return .ascending
        case (_, .integer), (_, .real): return .descending
        case (.text(let a), .text(let b)): return compareBytes(a.utf8, b.utf8)
        case (.text, .blob): return .ascending
        case (.blob, .text): return .descending
        case (.blob(let a), .blob(let b)): return compareBytes(a, b)
        }
    }

    private static func compare(integer: Int64, real: Double) -> Ordering {
        if real.isNaN { return .descending }
        if real >= 9_223_372_036_854_775_808.0 { return .ascending }
        if real < -9_223_372_036_854_775_808.0 { return .descending }
        let truncated = Int64(real.rounded(.down))
        if integer < truncated { return .ascending }
        if integer > truncated { return .descending }
        return Double(truncated) < real ? .ascending : .same
    }

    private static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Ordering {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .same
            case (nil, _): return .ascending
            case (_, nil): return .descending
            case (let x?, let y?):
                if x != y { return x < y ? .ascending : .descending }
            }
        }
    }

    /// The result of comparing two values.
    public enum Ordering: Sendable, Hashable {
        case ascending
        case same
        case descending

        var reversed: Ordering {
            switch self {
            case .ascending: .descending
            case .same: .same
            case .descending: .ascending
            }
        }
    }
}

extension StoreValue {
    /// The storage class of a non-`NULL` value as a column type; `nil` for `NULL`. What a ``StoreCursor`` over
    /// decoded values answers for `type(at:)`.
    package var columnType: ColumnType? {
        switch self {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }
}

extension StoreValue: Hashable {
    public static func == (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let value): hasher.combine(1); hasher.combine(value)
        case .real(let value): hasher.combine(2); hasher.combine(value)
        case .text(let value):
            hasher.combine(3)
            for byte in value.utf8 { hasher.combine(byte) }
        case .blob(let value): hasher.combine(4); hasher.combine(value)
        }
    }
}

extension StoreValue: CustomStringConvertible {
    /// A short rendering for messages; text and blobs are cut to 40 characters.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "\"\(value.prefix(40))\""
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}
