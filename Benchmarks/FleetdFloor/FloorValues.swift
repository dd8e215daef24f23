import Foundation
import Hummingbird
import NIOCore

/// A vehicle ID from a path: a UUID string in either case, kept as its 16 bytes (as fleetd stores them).
struct FloorID {
    /// Both halves in big-endian order, so that their bytes are the UUID's bytes.
    private(set) var bytes: (UInt64, UInt64)

    init?(_ text: String) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        var characters = 0
        for byte in text.utf8 {
            characters += 1
            if characters == 9 || characters == 14 || characters == 19 || characters == 24 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if nibbles < 16 {
                high = high << 4 | UInt64(value)
            } else {
                low = low << 4 | UInt64(value)
            }
            nibbles += 1
        }
        guard characters == 36, nibbles == 32 else { return nil }
        bytes = (high.bigEndian, low.bigEndian)
    }
}

/// fleetd's list cursors: `p1:` and the last plate of a page, in unpadded base64url.
enum FloorCursor {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ plate: [UInt8]) -> [UInt8] {
        let bytes = Array("p1:".utf8) + plate
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = bytes[index]
            let second = remaining > 1 ? bytes[index + 1] : 0
            let third = remaining > 2 ? bytes[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            if remaining > 1 { output.append(alphabet[Int((second & 0x0F) << 2 | third >> 6)]) }
            if remaining > 2 { output.append(alphabet[Int(third & 0x3F)]) }
            index += 3
        }
        return output
    }

    /// The plate a cursor continues after, or `nil` when it is not one.
    static func plate(in cursor: [UInt8]) -> [UInt8]? {
        guard cursor.count <= 128 else { return nil }
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for character in cursor {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bytes.starts(with: "p1:".utf8) else { return nil }
        return Array(bytes[3...])
    }
}

/// Proleptic Gregorian dates in UTC from days since 1970-01-01 and back.
enum FloorCalendar {
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// The moment twelve months before now (fleetd's default service interval), as seconds since 2001: the same
/// time of day, the same day of the month or the month's last day when it is shorter.
enum FloorCutoff {
    static func now() -> Double {
        let now = Date().timeIntervalSince1970
        let days = Int64((now / 86_400).rounded(.down))
        let timeOfDay = now - Double(days) * 86_400
        let (year, month, day) = FloorCalendar.civil(days: days)
        let clamped = min(day, FloorCalendar.daysIn(month: month, year: year - 1))
        let cutoff = Double(FloorCalendar.days(year: year - 1, month: month, day: clamped)) * 86_400 + timeOfDay
        return cutoff - Date.timeIntervalBetween1970AndReferenceDate
    }
}

/// The answers: JSON with fleetd's caching fields, and problems.
enum FloorResponse {
    enum Tag {
        /// `"3"` for revision 3.
        case revision(Int64)
        /// The FNV-1a 64-bit digest of the body, in hex (a page has no revision).
        case digest
    }

    static func json(_ body: ByteBuffer, eTag: Tag) -> Response {
        var headers = HTTPFields()
        headers.reserveCapacity(3)
        headers[.contentType] = "application/json"
        switch eTag {
        case .revision(let revision):
            headers[.eTag] = "\"\(revision)\""
        case .digest:
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in body.readableBytesView {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            headers[.eTag] = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
        }
        headers[.cacheControl] = "max-age=0"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// `201 Created` with the new vehicle's `Location` and `ETag`.
    static func created(_ body: ByteBuffer, id: uuid_t) -> Response {
        let text = UUID(uuid: id).uuidString.lowercased()
        return Response(
            status: .created,
            headers: [.contentType: "application/json", .location: "/v2/vehicles/\(text)", .eTag: "\"1\""],
            body: ResponseBody(byteBuffer: body)
        )
    }

    static func problem(_ status: HTTPResponse.Status, _ detail: String) -> Response {
        let body = #"{"detail":"\#(detail)","status":\#(status.code),"title":"\#(status.reasonPhrase)"}"#
        return Response(
            status: status,
            headers: [.contentType: "application/problem+json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body))
        )
    }

    static func unavailable(_ error: FloorError?) -> Response {
        problem(.internalServerError, "the database cannot be read")
    }
}
