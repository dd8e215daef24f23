public import Foundation
public import ModelKit

extension Int: StoreValueConvertible {
    public static var columnType: ColumnType { .integer }
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int64: StoreValueConvertible {
    public static var columnType: ColumnType { .integer }
    public var storeValue: StoreValue { .integer(self) }
    public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue else { return nil }
        self = value
    }
}

extension Int32: StoreValueConvertible {
    public static var columnType: ColumnType { .integer }
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: StoreValueConvertible {
    public static var columnType: ColumnType { .real }
    public var storeValue: StoreValue { .real(self) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: StoreValueConvertible {
    public static var columnType: ColumnType { .integer }
    public var storeValue: StoreValue { .integer(self ? 1 : 0) }
    public init?(storeValue: StoreValue) {
        guard case .integer(let value) = storeValue else { return nil }
        self = value != 0
    }
}

extension String: StoreValueConvertible {
    public static var columnType: ColumnType { .text }
    public var storeValue: StoreValue { .text(self) }
    public init?(storeValue: StoreValue) {
        guard case .text(let value) = storeValue else { return nil }
        self = value
    }
}

extension Data: StoreValueConvertible {
    public static var columnType: ColumnType { .blob }
    public var storeValue: StoreValue { .blob(self) }
    public init?(storeValue: StoreValue) {
        guard case .blob(let value) = storeValue else { return nil }
        self = value
    }
}

/// Dates are stored as seconds since 1970 (a real), so they sort and compare by time.
extension Date: StoreValueConvertible {
    public static var columnType: ColumnType { .real }
    public var storeValue: StoreValue { .real(timeIntervalSince1970) }
    public init?(storeValue: StoreValue) {
        guard let seconds = Double(storeValue: storeValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

/// UUIDs are stored as their 16 bytes, so time-ordered UUIDs sort by creation time.
extension UUID: StoreValueConvertible {
    public static var columnType: ColumnType { .blob }
    public var storeValue: StoreValue { .blob(UUIDBytes.data(self)) }
    public init?(storeValue: StoreValue) {
        guard case .blob(let data) = storeValue, let uuid = UUIDBytes.uuid(data) else { return nil }
        self = uuid
    }
}

extension ModelID: StoreValueConvertible {
    public static var columnType: ColumnType { .blob }
    public var storeValue: StoreValue { uuid.storeValue }
    public init?(storeValue: StoreValue) {
        guard let uuid = UUID(storeValue: storeValue) else { return nil }
        self.init(uuid: uuid)
    }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    public static var columnType: ColumnType { Wrapped.columnType }
    public static var isNullable: Bool { true }
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    public init?(storeValue: StoreValue) {
        if case .null = storeValue {
            self = .none
        } else if let value = Wrapped(storeValue: storeValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

extension StoreValueConvertible where Self: RawRepresentable, RawValue: StoreValueConvertible {
    public static var columnType: ColumnType { RawValue.columnType }
    public var storeValue: StoreValue { rawValue.storeValue }
    public init?(storeValue: StoreValue) {
        guard let raw = RawValue(storeValue: storeValue) else { return nil }
        self.init(rawValue: raw)
    }
}
