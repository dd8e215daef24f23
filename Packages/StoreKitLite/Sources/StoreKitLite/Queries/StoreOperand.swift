import Foundation

/// How a SQL backend runs `column <comparison> value` when the column holds `type`, so that it gives what
/// ``StorePredicate/evaluate(_:)`` gives for every value the column can hold.
///
/// A value of the column's own storage class is bound as it is. Across storage classes a database would convert
/// the operand (SQLite applies the column's affinity: `score = '1'` matches 1, `name < 1` compares text with text)
/// or refuse it (PostgreSQL), so the answer is worked out here from ``StoreValue/order(_:_:)``: numbers sort before
/// text and text before bytes, so such a comparison is decided for every non-`NULL` column value; an integer
/// against a real column (or a real against an integer column) becomes an exact comparison with a value of the
/// column's type, never a rounded one. The SQLite and PostgreSQL backends both write their conditions from it.
package enum StoreOperand {
    /// `NULL` operand: unknown for every row.
    case unknown
    /// The same answer for every non-`NULL` column value (and unknown for `NULL`).
    case decided(Bool)
    /// Compare the column with a bound value of its own storage class (never `.null`).
    case compare(StorePredicate.Comparison, StoreValue)

    package init(_ value: StoreValue, comparedWith type: ColumnType, by comparison: StorePredicate.Comparison) {
        switch (type, value) {
        case (_, .null):
            self = .unknown
        case (.integer, .integer):
            self = .compare(comparison, value)
        case (.real, .real(let real)):
            // NaN: every number compares as below it (`StoreValue.order`); PostgreSQL would say the same for `<`
            // but treats NaN as equal to itself, and NaN is never stored (it is stored as NULL).
            self = real.isNaN ? .decided(Self.holds(comparison, for: .descending)) : .compare(comparison, .real(real))
        case (.text, .text), (.blob, .blob):
            self = .compare(comparison, value)
        case (.integer, .real(let real)):
            self = Self.integerColumn(comparison, real)
        case (.real, .integer(let integer)):
            self = Self.realColumn(comparison, integer)
        case (.integer, _), (.real, _), (.text, .blob):
            // Numbers sort before text and bytes, text before bytes: the column is below the value.
            self = .decided(Self.holds(comparison, for: .ascending))
        case (.text, _), (.blob, _):
            // Text and bytes sort after numbers, bytes after text: the column is above the value.
            self = .decided(Self.holds(comparison, for: .descending))
        }
    }

    /// How `column IN (values)` runs when the column holds `type`: the operands, of the column's own storage class,
    /// that a column value can equal, and whether the list holds `NULL` (a row equal to none of them is then
    /// unknown, not false). Values of another storage class can never be equal and are left out.
    package static func membership(
        _ values: [StoreValue],
        comparedWith type: ColumnType
    ) -> (operands: [StoreValue], holdsNull: Bool) {
        var operands: [StoreValue] = []
        var holdsNull = false
        for value in values {
            switch StoreOperand(value, comparedWith: type, by: .equal) {
            case .unknown: holdsNull = true
            case .decided: break
            case .compare(_, let operand): operands.append(operand)
            }
        }
        return (operands, holdsNull)
    }

    /// Whether `comparison` holds when the column value orders as `order` against the operand.
    package static func holds(_ comparison: StorePredicate.Comparison, for order: StoreValue.Ordering) -> Bool {
        switch comparison {
        case .equal: order == .same
        case .notEqual: order != .same
        case .less: order == .ascending
        case .lessOrEqual: order != .descending
        case .greater: order == .descending
        case .greaterOrEqual: order != .ascending
        }
    }

    /// An integer column against a real: an equivalent comparison with an integer, or a decided one.
    private static func integerColumn(_ comparison: StorePredicate.Comparison, _ real: Double) -> Self {
        if real.isNaN || real >= 9_223_372_036_854_775_808.0 || real < -9_223_372_036_854_775_808.0 {
            // Every integer orders against it the same way.
            return .decided(holds(comparison, for: StoreValue.order(.integer(0), .real(real))))
        }
        let floor = real.rounded(.down)
        let integer = Int64(floor)
        if floor == real { return .compare(comparison, .integer(integer)) }
        // Between `integer` and `integer + 1`: never equal; below it exactly when at most `integer`.
        switch comparison {
        case .equal: return .decided(false)
        case .notEqual: return .decided(true)
        case .less, .lessOrEqual: return .compare(.lessOrEqual, .integer(integer))
        case .greater, .greaterOrEqual: return .compare(.greater, .integer(integer))
        }
    }

    /// A real column against an integer: an equivalent comparison with a real, or a decided one.
    private static func realColumn(_ comparison: StorePredicate.Comparison, _ integer: Int64) -> Self {
        let nearest = Double(integer)
        if Int64(exactly: nearest) == integer { return .compare(comparison, .real(nearest)) }
        // Not representable: the reals below it are those up to `below`, the reals above it those from `above`.
        let integerIsBelowNearest = StoreValue.order(.integer(integer), .real(nearest)) == .ascending
        let below = integerIsBelowNearest ? nearest.nextDown : nearest
        let above = integerIsBelowNearest ? nearest : nearest.nextUp
        switch comparison {
        case .equal: return .decided(false)
        case .notEqual: return .decided(true)
        case .less, .lessOrEqual: return .compare(.lessOrEqual, .real(below))
        case .greater, .greaterOrEqual: return .compare(.greaterOrEqual, .real(above))
        }
    }
}
