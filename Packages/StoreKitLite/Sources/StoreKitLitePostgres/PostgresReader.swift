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
