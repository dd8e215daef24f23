import Foundation
import HTTPTypes

/// The directives of `Cache-Control` fields (RFC 9111 section 5.2) that the HTTP cache acts on, of a request or a
/// response.
struct CacheControl: Sendable, Equatable {
    var maxAge: Int?
    var sharedMaxAge: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false
    var onlyIfCached = false
    /// A request's `max-stale`: how stale an answer it accepts, ``largestDelta`` when given without a value.
    var maxStale: Int?
    /// A request's `min-fresh`: how much freshness an answer must have left.
    var minFresh: Int?
    var staleIfError: Int?
    var staleWhileRevalidate: Int?

    /// The largest delta-seconds value kept (RFC 9111 section 1.2.2: 2^31).
    static let largestDelta = 2_147_483_648

    init() {}

    /// The directives of all `Cache-Control` fields in `fields`, and `Pragma: no-cache` when `Cache-Control` is
    /// absent.
    init(_ fields: HTTPFields) {
        var found = false
        for field in fields where field.name == .cacheControl {
            found = true
            parse(field.value)
        }
        if !found, let pragma = fields[Self.pragma], pragma.lowercased().contains("no-cache") {
            noCache = true
        }
    }

    static let pragma = HTTPField.Name("Pragma")!

    private mutating func parse(_ text: String) {
        for part in Self.split(text) {
            let (name, value) = Self.directive(part)
            switch name {
            case "max-age": maxAge = Self.seconds(value)
            case "s-maxage": sharedMaxAge = Self.seconds(value)
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "public": isPublic = true
            case "private": isPrivate = true
            case "only-if-cached": onlyIfCached = true
            // Without a value, any staleness (RFC 9111 section 5.2.1.2).
            case "max-stale": maxStale = value == nil ? Self.largestDelta : Self.seconds(value)
            case "min-fresh": minFresh = Self.seconds(value)
            case "stale-if-error": staleIfError = Self.seconds(value)
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(value)
            default: break
            }
        }
    }

    /// Splits at commas outside quoted strings, by UTF-8 byte (both are ASCII, so every split is a character
    /// boundary); stepping by `Character` was a large part of a cache lookup.
    private static func split(_ text: String) -> [Substring] {
        var parts: [Substring] = []
        let bytes = text.utf8
        var start = bytes.startIndex
        var quoted = false
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: ","), !quoted {
                parts.append(text[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }

    private static func directive(_ part: Substring) -> (String, Substring?) {
        let trimmed = part.trimmingOptionalWhitespace()
        guard let equals = trimmed.utf8.firstIndex(of: UInt8(ascii: "=")) else {
            return (lowercased(trimmed), nil)
        }
        let name = lowercased(trimmed[..<equals].trimmingOptionalWhitespace())
        var value = Substring(trimmed[trimmed.index(after: equals)...].trimmingOptionalWhitespace())
        if value.count >= 2, value.first == "\"", value.last == "\"" {
            value = value.dropFirst().dropLast()
        }
        return (name, value)
    }

    /// A delta-seconds value; an invalid one counts as 0 (stale), as RFC 9111 section 4.2.1 asks.
    private static func seconds(_ value: Substring?) -> Int {
        guard let value, !value.isEmpty else { return 0 }
        var seconds = 0
        for byte in value.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return 0 }
            // Past the largest delta, the value is the largest delta (RFC 9111 section 1.2.2).
            seconds = min(seconds * 10 + Int(byte - UInt8(ascii: "0")), largestDelta)
        }
        return seconds
    }

    /// `text` in lower case; the copy is made only when it holds an upper-case letter (directives almost never do).
    private static func lowercased(_ text: Substring) -> String {
        text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            ? text.lowercased() : String(text)
    }
}
