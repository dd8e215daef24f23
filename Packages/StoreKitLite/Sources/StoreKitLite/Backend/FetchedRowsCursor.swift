public import Foundation

/// A ``StoreCursor`` over rows already in memory: for a backend whose engine returns whole rows rather than a
/// result cursor (the in-memory backend), and the reader of rows overlaid with unsaved changes.
public final class FetchedRowsCursor: StoreCursor {
    private let rows: [StoreRow]
    private var position = -1

    /// A cursor positioned before the first of `rows`.
    public init(_ rows: [StoreRow]) {
        self.rows = rows
    }

    public func next() -> UUID? {
        position += 1
        return position < rows.count ? rows[position].id : nil
    }

    public var revision: Int64 { rows[position].revision }
    public var columnCount: Int { rows[position].values.count }

    public func type(at column: Int) -> ColumnType? {
        rows[position].values[column].columnType
    }

    public func integer(at column: Int) -> Int64 {
        if case .integer(let value) = rows[position].values[column] { return value }
        return 0
    }

    public func real(at column: Int) -> Double {
        if case .real(let value) = rows[position].values[column] { return value }
        return 0
    }

    public func text(at column: Int) -> String {
        if case .text(let value) = rows[position].values[column] { return value }
        return ""
    }

    public func blob(at column: Int) -> Data {
        if case .blob(let value) = rows[position].values[column] { return value }
        return Data()
    }

    public func value(at column: Int) -> StoreValue {
        rows[position].values[column]
    }
}
