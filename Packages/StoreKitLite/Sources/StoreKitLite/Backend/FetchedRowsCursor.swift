import Foundation

/// A ``StoreCursor`` over rows already fetched: the default for backends that return ``StoreRow``s, and the reader
/// of rows overlaid with unsaved changes.
final class FetchedRowsCursor: StoreCursor {
    private let rows: [StoreRow]
    private var position = -1

    init(_ rows: [StoreRow]) {
        self.rows = rows
    }

    func next() -> UUID? {
        position += 1
        return position < rows.count ? rows[position].id : nil
    }

    var revision: Int64 { rows[position].revision }
    var columnCount: Int { rows[position].values.count }

    func type(at column: Int) -> ColumnType? {
        rows[position].values[column].columnType
    }

    func integer(at column: Int) -> Int64 {
        if case .integer(let value) = rows[position].values[column] { return value }
        return 0
    }

    func real(at column: Int) -> Double {
        if case .real(let value) = rows[position].values[column] { return value }
        return 0
    }

    func text(at column: Int) -> String {
        if case .text(let value) = rows[position].values[column] { return value }
        return ""
    }

    func blob(at column: Int) -> Data {
        if case .blob(let value) = rows[position].values[column] { return value }
        return Data()
    }

    func value(at column: Int) -> StoreValue {
        rows[position].values[column]
    }
}
