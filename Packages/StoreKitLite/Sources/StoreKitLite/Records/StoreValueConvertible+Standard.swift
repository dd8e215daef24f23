public import Foundation
public import ModelKit

extension Int: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .integer }
    @inlinable public var storeValue: StoreValue { .integer(Int64(self)) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        guard row.type(at: column) == .integer else { return nil }
        return Int(exactly: row.integer(at: column))
    }
}

extension Int64: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .integer }
    @inlinable public var storeValue: StoreValue { .integer(self) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue else { return nil }
        self = value
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        row.type(at: column) == .integer ? row.integer(at: column) : nil
    }
}

extension Int32: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .integer }
    @inlinable public var storeValue: StoreValue { .integer(Int64(self)) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        guard row.type(at: column) == .integer else { return nil }
        return Int32(exactly: row.integer(at: column))
    }
}

extension Double: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .real }
    @inlinable public var storeValue: StoreValue { .real(self) }
    @inlinable public init?(storeValue: StoreValue) {
        switch storeValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        switch row.type(at: column) {
        case .real: row.real(at: column)
        case .integer: Double(row.integer(at: column))
        default: nil
        }
    }
}

extension Bool: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .integer }
    @inlinable public var storeValue: StoreValue { .integer(self ? 1 : 0) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue else { return nil }
        self = value != 0
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        row.type(at: column) == .integer ? row.integer(at: column) != 0 : nil
    }
}

extension String: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .text }
    @inlinable public var storeValue: StoreValue { .text(self) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .text(let value) = storeValue else { return nil }
        self = value
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        row.type(at: column) == .text ? row.text(at: column) : nil
    }
}

extension Data: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .blob }
    @inlinable public var storeValue: StoreValue { .blob(self) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .blob(let value) = storeValue else { return nil }
        self = value
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        row.type(at: column) == .blob ? row.blob(at: column) : nil
    }
}

/// Dates are stored as seconds since 1970 (a real), so they sort and compare by time.
extension Date: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .real }
    @inlinable public var storeValue: StoreValue { .real(timeIntervalSince1970) }
    @inlinable public init?(storeValue: StoreValue) {
        guard let seconds = Double(storeValue: storeValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        Double.decode(column: column, of: row).map(Date.init(timeIntervalSince1970:))
    }
}

/// UUIDs are stored as their 16 bytes, so time-ordered UUIDs sort by creation time.
extension UUID: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .blob }
    @inlinable public var storeValue: StoreValue { .blob(UUIDBytes.data(self)) }
    @inlinable public init?(storeValue: StoreValue) {
        guard case .blob(let data) = storeValue, let uuid = UUIDBytes.uuid(data) else { return nil }
        self = uuid
    }
}

extension ModelID: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { .blob }
    @inlinable public var storeValue: StoreValue { uuid.storeValue }
    @inlinable public init?(storeValue: StoreValue) {
        guard let uuid = UUID(storeValue: storeValue) else { return nil }
        self.init(uuid: uuid)
    }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { Wrapped.columnType }
    @inlinable public static var isNullable: Bool { true }
    @inlinable public var storeValue: StoreValue { self?.storeValue ?? .null }
    @inlinable public init?(storeValue: StoreValue) {
        if case .null = storeValue {
            self = .none
        } else if let value = Wrapped(storeValue: storeValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        if row.type(at: column) == nil { return .some(.none) }
        return Wrapped.decode(column: column, of: row).map { .some($0) }
    }
}

extension StoreValueConvertible where Self: RawRepresentable, RawValue: StoreValueConvertible {
    @inlinable public static var columnType: ColumnType { RawValue.columnType }
    @inlinable public var storeValue: StoreValue { rawValue.storeValue }
    @inlinable public init?(storeValue: StoreValue) {
        guard let raw = RawValue(storeValue: storeValue) else { return nil }
        self.init(rawValue: raw)
    }
    @inlinable public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        RawValue.decode(column: column, of: row).flatMap(Self.init(rawValue:))
    }
}
