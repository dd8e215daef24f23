import Foundation

/// Formats and parses the ISO 8601 timestamps ``ModelCoding`` uses, without `DateFormatter`.
///
/// Output is UTC, with milliseconds only when the date has a fraction of a second: `2024-03-01T08:15:30Z`,
/// `2024-03-01T08:15:30.250Z`. Whole seconds are thus what RFC 3339 readers without fraction support (Foundation's
/// `JSONDecoder` `.iso8601`, OpenAPI runtimes' default date transcoders) read. Input may carry 0 to 9 fraction digits,
/// and `Z` or a numeric offset (`+01:00`, `-0530`); the `T` may also be `t`. Years are 0001 through 9999.
enum ISO8601Timestamp {
    /// The timestamp for `date`, rounded to the nearest millisecond (written only when not zero), or `nil` outside
    /// years 1...9999.
    static func format(_ date: Date) -> String? {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMilliseconds.isFinite, abs(totalMilliseconds) < 1e15 else { return nil }
        let milliseconds = Int64(totalMilliseconds)
        let (days, millisecondOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendDigits(&bytes, year, count: 4)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(&bytes, month, count: 2)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(&bytes, day, count: 2)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(&bytes, hour, count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(&bytes, minute, count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(&bytes, second, count: 2)
        if millisecond != 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(&bytes, millisecond, count: 3)
        }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date for an ISO 8601 timestamp, or `nil` when the text is not one.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(digits: 4), reader.skip("-"),
            let month = reader.number(digits: 2), reader.skip("-"),
            let day = reader.number(digits: 2), reader.skip("T") || reader.skip("t"),
            let hour = reader.number(digits: 2), reader.skip(":"),
            let minute = reader.number(digits: 2), reader.skip(":"),
            let second = reader.number(digits: 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            var digits = 0
            var scale = 1.0
            var value = 0
            while let digit = reader.digit() {
                digits += 1
                guard digits <= 9 else { return nil }
                value = value * 10 + digit
                scale *= 10
            }
            guard digits > 0 else { return nil }
            fraction = Double(value) / scale
        }
        var offsetSeconds = 0
        if reader.skip("Z") || reader.skip("z") {
            offsetSeconds = 0
        } else if let sign = reader.sign() {
            guard let offsetHours = reader.number(digits: 2) else { return nil }
            _ = reader.skip(":")
            guard let offsetMinutes = reader.number(digits: 2), offsetHours <= 23, offsetMinutes <= 59 else {
                return nil
            }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard reader.isAtEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's public-domain algorithms)

    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = Int(days) + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return isLeap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, Int(remainder))
    }

    private static func appendDigits(_ bytes: inout [UInt8], _ value: Int, count: Int) {
        var divisor = 1
        for _ in 1..<count {
            divisor *= 10
        }
        var remaining = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(remaining / divisor))
            remaining %= divisor
            divisor /= 10
        }
    }

    /// Reads fixed-width digit groups and separators from a timestamp.
    private struct DigitReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func digit() -> Int? {
            guard position < bytes.count else { return nil }
            let value = Int(bytes[position]) - Int(UInt8(ascii: "0"))
            guard (0...9).contains(value) else { return nil }
            position += 1
            return value
        }

        mutating func number(digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let next = digit() else { return nil }
                value = value * 10 + next
            }
            return value
        }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
            position += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
