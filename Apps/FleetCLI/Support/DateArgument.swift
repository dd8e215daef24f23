import ArgumentParser
import Foundation

/// Dates on the command line: a day (`2024-05-01`, midnight UTC) or an ISO 8601 time.
enum DateArgument {
    static func parse(_ text: String, option: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        for options in [
            ISO8601DateFormatter.Options.withInternetDateTime,
            [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate],
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        throw ValidationError("\(option) takes a date such as 2024-05-01 or 2024-05-01T09:30:00Z, not \"\(text)\".")
    }
}
