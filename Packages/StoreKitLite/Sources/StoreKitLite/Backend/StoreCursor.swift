public import Foundation

/// The rows of one fetch, read one at a time and column by column, so that records are filled in straight from
/// the backend's result without building a ``StoreRow`` or ``StoreValue``s first.
///
/// A backend hands a cursor to the closure given to ``StoreBackend/fetch(_:reading:)``; it is valid only inside
/// that call. Columns are numbered in the order of the entity's columns (the ID and revision apart). Read a column
/// with the accessor for its ``type(at:)``: the typed accessors may assume it and need not check. A cursor is a
/// class (one per fetch), so that the record decoders reach it without projecting an existential box per value.
public protocol StoreCursor: AnyObject {
    /// Moves to the next row and returns its ID, or `nil` after the last row.
    ///
    /// - Throws: ``StoreError/Code/corruptValue`` for a stored ID that is not a UUID; backend errors.
    func next() throws(StoreError) -> UUID?
    /// The current row's revision.
    var revision: Int64 { get }
    /// The number of column values the current row holds.
    var columnCount: Int { get }
    /// The storage class of a column of the current row; `nil` for `NULL`.
    func type(at column: Int) -> ColumnType?
    /// An integer column of the current row.
    func integer(at column: Int) -> Int64
    /// A real column of the current row.
    func real(at column: Int) -> Double
    /// A text column of the current row.
    func text(at column: Int) -> String
    /// A blob column of the current row.
    func blob(at column: Int) -> Data
    /// A column of the current row as a ``StoreValue``; the default reads it with the accessor for its type.
    func value(at column: Int) -> StoreValue
}

extension StoreCursor {
    public func value(at column: Int) -> StoreValue {
        switch type(at: column) {
        case nil: .null
        case .integer: .integer(integer(at: column))
        case .real: .real(real(at: column))
        case .text: .text(text(at: column))
        case .blob: .blob(blob(at: column))
        }
    }
}
