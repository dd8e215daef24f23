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

/// A cursor over result rows (`id`, `revision`, then the entity's columns) that decodes each value when it is
/// read, straight from the row's bytes: reading into plain values never builds a ``StoreKitLite/StoreRow``.
///
/// The column types of the first row are checked against the model (a table whose columns differ is
/// ``StoreKitLite/StoreError/Code/corruptValue``); every later row of the same result has the same types.
final class PostgresRowsCursor: StoreCursor {
    private let rows: [PostgresRow]
    private let entity: EntityDescription
    private var position = -1
    private var current: PostgresRandomAccessRow?
    private(set) var revision: Int64 = 0

    init(_ rows: [PostgresRow], of entity: EntityDescription) {
        self.rows = rows
        self.entity = entity
    }

    var columnCount: Int { entity.columns.count }

    func next() throws(StoreError) -> UUID? {
        position += 1
        guard position < rows.count else {
            current = nil
            return nil
        }
        let cells = rows[position].makeRandomAccess()
        if position == 0 { try check(cells) }
        let id: UUID
        do {
            id = try cells[0].decode(UUID.self)
            revision = try cells[1].decode(Int64.self)
        } catch {
            throw StoreError(.corruptValue, entity: entity.name, detail: "a stored ID or revision does not decode")
        }
        current = cells
        return id
    }

    private func check(_ cells: PostgresRandomAccessRow) throws(StoreError) {
        guard cells.count == entity.columns.count + 2 else {
            throw StoreError(.corruptValue, entity: entity.name, detail: "the table's columns differ from the model's")
        }
        for (offset, column) in entity.columns.enumerated() {
            let expected: PostgresDataType
            switch column.type {
            case .integer: expected = .int8
            case .real: expected = .float8
            case .text: expected = .text
            case .blob: expected = .bytea
            }
            guard cells[offset + 2].dataType == expected else {
                throw StoreError(
                    .corruptValue,
                    entity: entity.name,
                    detail: "\(column.name) is not stored as \(column.type.rawValue)"
                )
            }
        }
    }

    func type(at column: Int) -> ColumnType? {
        guard let current, current[column + 2].bytes != nil else { return nil }
        return entity.columns[column].type
    }

    func integer(at column: Int) -> Int64 {
        (try? current?[column + 2].decode(Int64.self)) ?? 0
    }

    func real(at column: Int) -> Double {
        (try? current?[column + 2].decode(Double.self)) ?? 0
    }

    func text(at column: Int) -> String {
        (try? current?[column + 2].decode(String.self)) ?? ""
    }

    func blob(at column: Int) -> Data {
        guard let buffer = try? current?[column + 2].decode(ByteBuffer.self) else { return Data() }
        return Data(buffer.readableBytesView)
    }
}
