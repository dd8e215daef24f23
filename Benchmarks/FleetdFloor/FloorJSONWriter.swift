import Foundation
import GRDBSQLite
import NIOCore

/// Writes vehicles as fleetd's v2 JSON (members in sorted order, dates in UTC with milliseconds when not zero, the same string
/// escapes) straight from a statement's columns into a `ByteBuffer`.
struct FloorJSONWriter {
    private(set) var buffer: ByteBuffer
    /// Seconds since 2001 (as `Date` keeps them): a vehicle last serviced before this is due.
    private let cutoff: Double

    init(capacity: Int, cutoff: Double) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
        self.cutoff = cutoff
    }

    mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    /// The row's vehicle: columns id, plate, make, model, modelYear, flagged, lastServiced, apiRevision.
    mutating func vehicle(_ statement: OpaquePointer) {
        raw("{\"id\":\"")
        uuid(statement, column: 0)
        raw("\",\"maintenance\":{\"due\":")
        let flagged = sqlite3_column_int64(statement, 5) != 0
        let lastServiced: Double? =
            sqlite3_column_type(statement, 6) == SQLITE_NULL
            ? nil : sqlite3_column_double(statement, 6) - Date.timeIntervalBetween1970AndReferenceDate
        let due = flagged || (lastServiced.map { $0 < cutoff } ?? false)
        if due { raw("true") } else { raw("false") }
        if let lastServiced {
            timestamp(lastServiced + Date.timeIntervalBetween1970AndReferenceDate)
        }
        raw("},\"make\":")
        string(statement, column: 2)
        raw(",\"model\":")
        string(statement, column: 3)
        raw(",\"modelYear\":")
        integer(sqlite3_column_int64(statement, 4))
        raw(",\"plate\":")
        string(statement, column: 1)
        raw(",\"revision\":")
        integer(sqlite3_column_int64(statement, 7))
        raw("}")
    }

    /// A list cursor: `p1:` and the plate in unpadded base64url, as a JSON string.
    mutating func cursor(after plate: [UInt8]) {
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeBytes(FloorCursor.encode(plate))
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A 16-byte ID as a lowercase UUID string.
    private mutating func uuid(_ statement: OpaquePointer, column: Int32) {
        guard sqlite3_column_bytes(statement, column) == 16, let blob = sqlite3_column_blob(statement, column) else {
            return
        }
        let bytes = blob.assumingMemoryBound(to: UInt8.self)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { output in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = Self.hex[Int(bytes[index] >> 4)]
                output[position + 1] = Self.hex[Int(bytes[index] & 0x0F)]
                position += 2
            }
            return position
        }
    }

    /// `,"lastServiced":"2024-01-02T03:04:05Z"` for seconds since 1970, rounded to the millisecond (written only
    /// when not zero, `…05.250Z`); nothing
    /// outside the years 1 to 9999.
    private mutating func timestamp(_ seconds: Double) {
        let total = (seconds * 1000).rounded()
        guard total.isFinite, abs(total) < 1e15 else { return }
        let milliseconds = Int64(total)
        var days = milliseconds / 86_400_000
        var ofDay = milliseconds % 86_400_000
        if ofDay < 0 {
            days -= 1
            ofDay += 86_400_000
        }
        let (year, month, day) = FloorCalendar.civil(days: days)
        guard (1...9999).contains(year) else { return }
        raw(",\"lastServiced\":\"")
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 24) { output in
            var position = 0
            func put(_ value: Int64, _ width: Int) {
                var value = value
                var index = position + width - 1
                while index >= position {
                    output[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                    index -= 1
                }
                position += width
            }
            func put(_ character: Unicode.Scalar) {
                output[position] = UInt8(ascii: character)
                position += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(ofDay / 3_600_000, 2)
            put(":")
            put(ofDay / 60_000 % 60, 2)
            put(":")
            put(ofDay / 1000 % 60, 2)
            if ofDay % 1000 != 0 {
                put(".")
                put(ofDay % 1000, 3)
            }
            put("Z")
            return position
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private mutating func integer(_ value: Int64) {
        var magnitude = value.magnitude
        var width = value < 0 ? 2 : 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: width) { output in
            if value < 0 { output[0] = UInt8(ascii: "-") }
            var index = width - 1
            repeat {
                output[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                index -= 1
            } while magnitude > 0
            return width
        }
    }

    /// A text column as a JSON string, escaped as fleetd escapes: `"`, `\`, control characters, U+2028 and U+2029.
    private mutating func string(_ statement: OpaquePointer, column: Int32) {
        buffer.writeInteger(UInt8(ascii: "\""))
        let count = Int(sqlite3_column_bytes(statement, column))
        if count > 0, let text = sqlite3_column_text(statement, column) {
            let bytes = UnsafeBufferPointer(start: text, count: count)
            var runStart = 0
            var index = 0
            while index < count {
                let byte = bytes[index]
                let isSeparator =
                    byte == 0xE2 && index + 2 < count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9)
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || isSeparator {
                    buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index])))
                    if isSeparator {
                        if bytes[index + 2] == 0xA8 { raw("\\u2028") } else { raw("\\u2029") }
                        index += 3
                    } else {
                        escape(byte)
                        index += 1
                    }
                    runStart = index
                } else {
                    index += 1
                }
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<count])))
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        default:
            raw("\\u00")
            buffer.writeInteger(Self.hex[Int(byte >> 4)])
            buffer.writeInteger(Self.hex[Int(byte & 0x0F)])
        }
    }
}
