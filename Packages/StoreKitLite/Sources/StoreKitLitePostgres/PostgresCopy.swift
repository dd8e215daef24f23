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
    /// The lowercase hex digit for the low four bits of `nibble`.
    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        let value = nibble & 0x0f
        return value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// A UUID in its usual text form (lowercase), as PostgreSQL's `uuid` input reads it.
    mutating func writeUUIDText(_ uuid: UUID) {
        _ = withUnsafeBytes(of: uuid.uuid) { bytes in
            writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { target in
                var written = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        target[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    target[written] = Self.hexDigit(byte >> 4)
                    target[written + 1] = Self.hexDigit(byte)
                    written += 2
                }
                return written
            }
        }
    }

    /// One field of `COPY`'s text format: `\N` for `NULL`; text with backslash, tab, newline and carriage return
    /// escaped; bytes as `\\x` and hex (the backslash of bytea's hex form escaped); reals in Swift's shortest form
    /// that reads back as the same double.
    ///
    /// Every field is written straight into the buffer's memory, never a byte at a time through the buffer's
    /// generic writers: a megabyte of bytes is two megabytes of hex.
    ///
    /// - Returns: `false`, having written nothing, for text holding U+0000, which PostgreSQL's text
    ///   cannot hold (a bound parameter holding it fails on the server).
    mutating func writeCopyField(_ value: StoreValue) -> Bool {
        switch value {
        case .null:
            writeStaticString("\\N")
        case .integer(let integer):
            writeDecimal(integer)
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
            _ = bytes.withUnsafeBytes { source in
                writeWithUnsafeMutableBytes(minimumWritableBytes: source.count * 2) { target in
                    for (index, byte) in source.enumerated() {
                        target[2 * index] = Self.hexDigit(byte >> 4)
                        target[2 * index + 1] = Self.hexDigit(byte)
                    }
                    return source.count * 2
                }
            }
        }
        return true
    }

    /// An integer in decimal, without making a `String` of it.
    private mutating func writeDecimal(_ integer: Int64) {
        // 20 bytes hold the longest, "-9223372036854775808".
        writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { target in
            var magnitude = integer.magnitude
            var digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            let sign = integer < 0 ? 1 : 0
            if sign == 1 { target[0] = UInt8(ascii: "-") }
            magnitude = integer.magnitude
            var index = sign + digits
            repeat {
                index -= 1
                target[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            return sign + digits
        }
    }

    private mutating func writeCopyText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { source in
            var escapes = 0
            for byte in source {
                switch byte {
                case 0x00: return false
                case 0x5c, 0x09, 0x0a, 0x0d: escapes += 1
                default: break
                }
            }
            guard escapes > 0 else {
                writeBytes(source)
                return true
            }
            writeWithUnsafeMutableBytes(minimumWritableBytes: source.count + escapes) { target in
                var written = 0
                for byte in source {
                    let escaped: UInt8
                    switch byte {
                    case 0x5c: escaped = UInt8(ascii: "\\")
                    case 0x09: escaped = UInt8(ascii: "t")
                    case 0x0a: escaped = UInt8(ascii: "n")
                    case 0x0d: escaped = UInt8(ascii: "r")
                    default:
                        target[written] = byte
                        written += 1
                        continue
                    }
                    target[written] = UInt8(ascii: "\\")
                    target[written + 1] = escaped
                    written += 2
                }
                return written
            }
            return true
        }
    }
}
