/// A Swift type a record stores in one column.
///
/// StoreKitLite ships conformances for `Int`, `Int64`, `Int32`, `Double`, `Bool`, `String`, `Data`, `Date`,
/// `UUID`, `ModelID`, `RawRepresentable` types whose raw value conforms (opt in), and `Optional` of any of them
/// (a nullable column).
public protocol StoreValueConvertible: Sendable {
    /// The column type this Swift type is stored as.
    static var columnType: ColumnType { get }
    /// Whether the column accepts `NULL` (only `Optional` says yes).
    static var isNullable: Bool { get }
    /// The stored form of the value.
    var storeValue: StoreValue { get }
    /// Reads a stored value; `nil` when the stored value does not fit this type.
    init?(storeValue: StoreValue)
}

extension StoreValueConvertible {
    public static var isNullable: Bool { false }
}
