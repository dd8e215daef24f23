import Foundation
import PostgresNIO
import StoreKitLite

/// Turns result rows (`id`, `revision`, then the entity's columns) into ``StoreKitLite/StoreRow``s, decoding each
/// column as its declared type.
enum PostgresReader {
    static func rows(_ sequence: PostgresRowSequence, of entity: EntityDescription) async throws -> [StoreRow] {
        var rows: [StoreRow] = []
        for try await row in sequence {
            rows.append(try self.row(row, of: entity))
        }
        return rows
    }

    static func row(_ row: PostgresRow, of entity: EntityDescription) throws -> StoreRow {
        let cells = row.makeRandomAccess()
        guard cells.count == entity.columns.count + 2 else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "the table's columns differ from the model's")
        }
        let id: UUID
        let revision: Int64
        do {
            id = try cells[0].decode(UUID.self)
            revision = try cells[1].decode(Int64.self)
        } catch {
            throw StoreError(.corruptValue, entity: entity.name, detail: "a stored ID or revision does not decode")
        }
        var values: [StoreValue] = []
        values.reserveCapacity(entity.columns.count)
        for (offset, column) in entity.columns.enumerated() {
            values.append(try value(of: cells[offset + 2], as: column, in: entity, record: id, checkingType: false))
        }
        return StoreRow(id: id, revision: revision, values: values)
    }

    /// One column's value, decoded as the column's declared type; with `checkingType`, the cell's PostgreSQL type
    /// is checked against it first.
    static func value(
        of cell: PostgresCell,
        as column: ColumnDescription,
        in entity: EntityDescription,
        record: UUID?,
        checkingType: Bool
    ) throws(StoreError) -> StoreValue {
        if checkingType {
            let expected: PostgresDataType
            switch column.type {
            case .integer: expected = .int8
            case .real: expected = .float8
            case .text: expected = .text
            case .blob: expected = .bytea
            }
            guard cell.dataType == expected else {
                throw StoreError(
                    .corruptValue,
                    entity: entity.name,
                    detail: "\(column.name) is not stored as \(column.type.rawValue)"
                )
            }
        }
        guard cell.bytes != nil else { return .null }
        do {
            switch column.type {
            case .integer: return .integer(try cell.decode(Int64.self))
            case .real: return .real(try cell.decode(Double.self))
            case .text: return .text(try cell.decode(String.self))
            case .blob: return .blob(Data(try cell.decode(ByteBuffer.self).readableBytesView))
            }
        } catch {
            throw StoreError(
                .corruptValue,
                entity: entity.name,
                records: record.map { [$0] } ?? [],
                detail: "\(column.name) does not decode as \(column.type.rawValue)"
            )
        }
    }
}

/// Result rows (`id`, `revision`, then the entity's columns) decoded as they arrive into three flat arrays: no
/// ``StoreKitLite/StoreRow`` and no array per row, and the decoding overlaps with the server sending the rest.
///
/// The column types of the first row are checked against the model (a table whose columns differ is
/// ``StoreKitLite/StoreError/Code/corruptValue``); every later row of the same result has the same types.
struct PostgresFlatRows: Sendable {
    var ids: [UUID] = []
    var revisions: [Int64] = []
    /// The values, row after row, ``columnCount`` a row.
    var values: [StoreValue] = []
    let columnCount: Int

    static func read(_ sequence: PostgresRowSequence, of entity: EntityDescription) async throws -> PostgresFlatRows {
        let columns = entity.columns
        var rows = PostgresFlatRows(columnCount: columns.count)
        var first = true
        for try await row in sequence {
            var index = 0
            var id: UUID?
            for cell in row {
                switch index {
                case 0:
                    id = try? cell.decode(UUID.self)
                case 1:
                    guard let id, let revision = try? cell.decode(Int64.self) else {
                        throw StoreError(
                            .corruptValue,
                            entity: entity.name,
                            detail: "a stored ID or revision does not decode"
                        )
                    }
                    rows.ids.append(id)
                    rows.revisions.append(revision)
                default:
                    guard index - 2 < columns.count else { break }
                    rows.values.append(
                        try PostgresReader.value(
                            of: cell,
                            as: columns[index - 2],
                            in: entity,
                            record: id,
                            checkingType: first
                        )
                    )
                }
                index += 1
            }
            guard index == columns.count + 2 else {
                throw StoreError(
                    .corruptValue,
                    entity: entity.name,
                    detail: "the table's columns differ from the model's"
                )
            }
            first = false
        }
        return rows
    }
}

/// A cursor over ``PostgresFlatRows``.
final class PostgresFlatRowsCursor: StoreCursor {
    private let rows: PostgresFlatRows
    private var position = -1
    /// Where the current row's values start in `rows.values`.
    private var offset = 0

    init(_ rows: PostgresFlatRows) {
        self.rows = rows
    }

    var revision: Int64 { rows.revisions[position] }
    var columnCount: Int { rows.columnCount }

    func next() -> UUID? {
        position += 1
        guard position < rows.ids.count else { return nil }
        offset = position * rows.columnCount
        return rows.ids[position]
    }

    func value(at column: Int) -> StoreValue {
        rows.values[offset + column]
    }

    func type(at column: Int) -> ColumnType? {
        rows.values[offset + column].columnType
    }

    func integer(at column: Int) -> Int64 {
        if case .integer(let value) = rows.values[offset + column] { return value }
        return 0
    }

    func real(at column: Int) -> Double {
        if case .real(let value) = rows.values[offset + column] { return value }
        return 0
    }

    func text(at column: Int) -> String {
        if case .text(let value) = rows.values[offset + column] { return value }
        return ""
    }

    func blob(at column: Int) -> Data {
        if case .blob(let value) = rows.values[offset + column] { return value }
        return Data()
    }
}
