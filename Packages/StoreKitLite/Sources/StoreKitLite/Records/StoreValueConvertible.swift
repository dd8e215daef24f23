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
    /// Reads a column of a cursor's current row; `nil` when the stored value does not fit this type.
    ///
    /// Must agree with ``init(storeValue:)`` on ``StoreCursor/value(at:)``, which the default uses; the standard
    /// types read the cursor's typed accessors instead, so that no ``StoreValue`` is built.
    static func decode(column: Int, of row: any StoreCursor) -> Self?
}

extension StoreValueConvertible {
    public static var isNullable: Bool { false }

    @inlinable
    public static func decode(column: Int, of row: any StoreCursor) -> Self? {
        Self(storeValue: row.value(at: column))
    }
}
