import Foundation
import Logging
import PostgresNIO
import StoreKitLite

/// Inserts rows with one `COPY … FROM STDIN` in PostgreSQL's text format, on a connection inside the caller's
/// transaction. ``encode(_:of:schema:)`` converts every value with ``PostgresBinder/stored(_:as:column:)``, exactly
/// as a bound parameter is converted, and makes the whole input before anything is sent, so a value that does not
/// fit its column (or text holding U+0000, which PostgreSQL's text cannot hold) fails the batch before the server
/// sees it. A failure the server reports (a duplicate ID) fails the `COPY` and with it the transaction.
enum PostgresCopy {
    /// The size of the chunks the input is sent in.
    static let chunkSize = 256 * 1024

    /// One `COPY`'s target and its whole input.
    struct Input {
        /// The table, as PostgresNIO's `copyFrom` puts it between double quotes.
        var table: String
        /// The columns, each as PostgresNIO's `copyFrom` puts it between double quotes.
        var columns: [String]
        /// The input, one line a row, in chunks of about ``PostgresCopy/chunkSize`` bytes.
        var chunks: [ByteBuffer]
    }

    /// Sends `input` in one `COPY`.
    static func send(_ input: Input, on connection: PostgresConnection, logger: Logger) async throws {
        guard !connection.isClosed else {
            throw StoreError(.connectionLost, reason: "the connection is closed")
        }
        try await connection.copyFrom(table: input.table, columns: input.columns, logger: logger) { writer in
            for chunk in input.chunks { try await writer.write(chunk) }
        }
    }

    /// The rows as `COPY` text-format input into `entity`'s table: one line a row, the ID, revision 1, then the
    /// values, tab-separated.
    ///
    /// - Throws: ``StoreKitLite/StoreError/Code/backend`` for a value that does not fit its column, or text
    ///   holding U+0000.
    static func encode(
        _ rows: ArraySlice<StoreRow>,
        of entity: EntityDescription,
        schema: String
    ) throws(StoreError) -> Input {
        // PostgresNIO writes `COPY "<table>"("<column>",…)`, quoting the table as one identifier and each column
        // as given: with the inner quotes doubled, `schema"."table` becomes the qualified name `"schema"."table"`.
        let table = PostgresSQL.escapedInsideQuotes(schema) + "\".\"" + PostgresSQL.escapedInsideQuotes(entity.name)
        let columns = (["id", "revision"] + entity.columns.map(\.name)).map(PostgresSQL.escapedInsideQuotes)
        var chunks: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(chunkSize + chunkSize / 4)
        for row in rows {
            guard row.values.count == entity.columns.count else {
                throw StoreError(.backend, entity: entity.name, detail: "a row has the wrong number of columns")
            }
            buffer.writeUUIDText(row.id)
            buffer.writeStaticString("\t1")
            for (column, value) in zip(entity.columns, row.values) {
                buffer.writeStaticString("\t")
                let stored = try PostgresBinder.stored(value, as: column.type, column: column.name)
                guard buffer.writeCopyField(stored) else {
                    throw StoreError(
                        .backend,
                        entity: entity.name,
                        detail: "a value of \(column.name) holds U+0000, which PostgreSQL's text cannot hold"
                    )
                }
            }
            buffer.writeStaticString("\n")
            if buffer.readableBytes >= chunkSize {
                chunks.append(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(chunkSize + chunkSize / 4)
            }
        }
        if buffer.readableBytes > 0 { chunks.append(buffer) }
        return Input(table: table, columns: columns, chunks: chunks)
    }
}

extension ByteBuffer {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A UUID in its usual text form (lowercase), as PostgreSQL's `uuid` input reads it.
    mutating func writeUUIDText(_ uuid: UUID) {
        reserveCapacity(minimumWritableBytes: 36)
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { writeInteger(UInt8(ascii: "-")) }
                writeInteger(Self.hexDigits[Int(byte >> 4)])
                writeInteger(Self.hexDigits[Int(byte & 0x0f)])
            }
        }
    }

    /// One field of `COPY`'s text format: `\N` for `NULL`; text with backslash, tab, newline and carriage return
    /// escaped; bytes as `\\x` and hex (the backslash of bytea's hex form escaped); reals in Swift's shortest form
    /// that reads back as the same double.
    ///
    /// - Returns: `false`, having written part of the field, for text holding U+0000, which PostgreSQL's text
    ///   cannot hold (a bound parameter holding it fails on the server).
    mutating func writeCopyField(_ value: StoreValue) -> Bool {
        switch value {
        case .null:
            writeStaticString("\\N")
        case .integer(let integer):
            writeString(String(integer))
        case .real(let real):
            if real.isInfinite {
                writeStaticString(real < 0 ? "-Infinity" : "Infinity")
            } else {
                writeString(real.description)
            }
        case .text(let text):
            return writeCopyText(text)
        case .blob(let bytes):
            writeStaticString("\\\\x")
            reserveCapacity(minimumWritableBytes: bytes.count * 2)
            for byte in bytes {
                writeInteger(Self.hexDigits[Int(byte >> 4)])
                writeInteger(Self.hexDigits[Int(byte & 0x0f)])
            }
        }
        return true
    }

    private mutating func writeCopyText(_ text: String) -> Bool {
        let utf8 = text.utf8
        let needsEscaping = utf8.contains { byte in
            byte == 0x5c || byte == 0x09 || byte == 0x0a || byte == 0x0d || byte == 0x00
        }
        guard needsEscaping else {
            writeString(text)
            return true
        }
        for byte in utf8 {
            switch byte {
            case 0x00: return false
            case 0x5c: writeStaticString("\\\\")
            case 0x09: writeStaticString("\\t")
            case 0x0a: writeStaticString("\\n")
            case 0x0d: writeStaticString("\\r")
            default: writeInteger(byte)
            }
        }
        return true
    }
}
