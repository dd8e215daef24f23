import Foundation
import ModelKit
import StoreKitLite
import Testing

/// A cursor over rows in memory, as a backend author might write one.
final class RowsCursor: StoreCursor {
    let rows: [StoreRow]
    var position = -1

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
        switch rows[position].values[column] {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    func integer(at column: Int) -> Int64 {
        if case .integer(let value) = rows[position].values[column] { value } else { 0 }
    }

    func real(at column: Int) -> Double {
        if case .real(let value) = rows[position].values[column] { value } else { 0 }
    }

    func text(at column: Int) -> String {
        if case .text(let value) = rows[position].values[column] { value } else { "" }
    }

    func blob(at column: Int) -> Data {
        if case .blob(let value) = rows[position].values[column] { value } else { Data() }
    }
}

/// Records decoded from a cursor column by column are exactly those rebuilt from ``StoreRow``s, errors included.
struct CursorDecodingTests {
    static let vehicleRows: [[StoreValue]] = [
        [.text("AB-123"), .text("Fiat"), .integer(2019), .real(12.5), .integer(1)],
        [.text("CD-456"), .text("Škoda"), .integer(2023), .null, .integer(0)],
        [.text("EF-789"), .text(""), .integer(-1), .integer(7), .integer(5)],
        [.text("GH-000"), .text("Fiat"), .text("2019"), .null, .integer(1)],
        [.text("GH-001"), .text("Fiat"), .real(2019), .null, .integer(1)],
        [.null, .text("Fiat"), .integer(2019), .null, .integer(1)],
        [.text("GH-002"), .integer(3), .integer(2019), .null, .integer(1)],
        [.text("GH-003"), .text("Fiat"), .integer(2019), .text("far"), .integer(1)],
        [.text("GH-004"), .text("Fiat"), .integer(2019), .null, .real(1)],
        [.text("GH-005"), .text("Fiat"), .integer(2019), .null],
    ]

    static let driverRows: [[StoreValue]] = [
        [.text("Ann"), .null],
        [.text("Bo"), .blob(Data(repeating: 7, count: 16))],
        [.text("Cy"), .blob(Data([1, 2, 3]))],
        [.text("Di"), .text("not an ID")],
    ]

    static func decodeBothWays<R: Record & Equatable>(
        _ values: [StoreValue],
        as type: R.Type
    ) -> (Result<R, StoreError>, Result<R, StoreError>) {
        let row = StoreRow(id: UUID(), revision: 3, values: values)
        let fromRow = Result { () throws(StoreError) -> R in try R.schema.record(from: row) }
        let fromCursor = Result { () throws(StoreError) -> R in
            let records = try R.schema.records(from: RowsCursor([row]))
            return records[0]
        }
        return (fromRow, fromCursor)
    }

    @Test(arguments: vehicleRows)
    func vehiclesDecodeTheSameFromACursor(values: [StoreValue]) {
        let (fromRow, fromCursor) = Self.decodeBothWays(values, as: Vehicle.self)
        switch (fromRow, fromCursor) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.code == .corruptValue && "\(a)" == "\(b)")
        default: Issue.record("row and cursor disagree: \(fromRow) vs \(fromCursor)")
        }
    }

    @Test(arguments: driverRows)
    func optionalIDsDecodeTheSameFromACursor(values: [StoreValue]) {
        let (fromRow, fromCursor) = Self.decodeBothWays(values, as: Driver.self)
        switch (fromRow, fromCursor) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.code == .corruptValue && "\(a)" == "\(b)")
        default: Issue.record("row and cursor disagree: \(fromRow) vs \(fromCursor)")
        }
    }

    @Test
    func aCursorWithNoRowsDecodesNoRecords() throws {
        #expect(try Vehicle.schema.records(from: RowsCursor([])).isEmpty)
    }
}
