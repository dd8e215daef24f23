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
            let cell = cells[offset + 2]
            guard cell.bytes != nil else {
                values.append(.null)
                continue
            }
            do {
                switch column.type {
                case .integer: values.append(.integer(try cell.decode(Int64.self)))
                case .real: values.append(.real(try cell.decode(Double.self)))
                case .text: values.append(.text(try cell.decode(String.self)))
                case .blob:
                    var buffer = try cell.decode(ByteBuffer.self)
                    values.append(.blob(Data(buffer.readBytes(length: buffer.readableBytes) ?? [])))
                }
            } catch {
                throw StoreError(
                    .corruptValue,
                    entity: entity.name,
                    records: [id],
                    detail: "\(column.name) does not decode as \(column.type.rawValue)"
                )
            }
        }
        return StoreRow(id: id, revision: revision, values: values)
    }
}

/// A cursor over result rows (`id`, `revision`, then the entity's columns) that decodes one row at a time into a
/// buffer it reuses: reading into plain values builds no ``StoreKitLite/StoreRow`` and allocates nothing per row
/// beyond the values themselves (text, blobs).
///
/// The column types of the first row are checked against the model (a table whose columns differ is
/// ``StoreKitLite/StoreError/Code/corruptValue``); every later row of the same result has the same types.
final class PostgresRowsCursor: StoreCursor {
    private let rows: [PostgresRow]
    private let entity: EntityDescription
    private var position = -1
    private var values: [StoreValue] = []
    private(set) var revision: Int64 = 0

    init(_ rows: [PostgresRow], of entity: EntityDescription) {
        self.rows = rows
        self.entity = entity
        values.reserveCapacity(entity.columns.count)
    }

    var columnCount: Int { values.count }

    func next() throws(StoreError) -> UUID? {
        position += 1
        // Filled as a local and put back once: one exclusive access to the stored buffer per row, not one per value.
        var values = self.values
        self.values = []
        values.removeAll(keepingCapacity: true)
        defer { self.values = values }
        guard position < rows.count else { return nil }
        let columns = entity.columns
        let first = position == 0
        var id: UUID?
        var revision: Int64?
        var index = 0
        for cell in rows[position] {
            switch index {
            case 0:
                id = try? cell.decode(UUID.self)
            case 1:
                revision = try? cell.decode(Int64.self)
            default:
                guard index - 2 < columns.count else { break }
                values.append(try value(of: cell, as: columns[index - 2], record: id, checkingType: first))
            }
            index += 1
        }
        if let revision { self.revision = revision } else { id = nil }
        guard index == columns.count + 2 else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "the table's columns differ from the model's")
        }
        guard let id else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "a stored ID or revision does not decode")
        }
        return id
    }

    private func value(
        of cell: PostgresCell,
        as column: ColumnDescription,
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

    func type(at column: Int) -> ColumnType? {
        switch values[column] {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    func integer(at column: Int) -> Int64 {
        if case .integer(let value) = values[column] { return value }
        return 0
    }

    func real(at column: Int) -> Double {
        if case .real(let value) = values[column] { return value }
        return 0
    }

    func text(at column: Int) -> String {
        if case .text(let value) = values[column] { return value }
        return ""
    }

    func blob(at column: Int) -> Data {
        if case .blob(let value) = values[column] { return value }
        return Data()
    }

    func value(at column: Int) -> StoreValue {
        values[column]
    }
}
