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
            case "stale-if-error": staleIfError = Self.seconds(value)
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(value)
            default: break
            }
        }
    }

    /// Splits at commas outside quoted strings.
    private static func split(_ text: String) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }

    private static func directive(_ part: Substring) -> (String, Substring?) {
        let trimmed = part.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed.lowercased(), nil) }
        let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        var value = Substring(trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        if value.count >= 2, value.first == "\"", value.last == "\"" {
            value = value.dropFirst().dropLast()
        }
        return (name, value)
    }

    /// A delta-seconds value; an invalid one counts as 0 (stale), as RFC 9111 section 4.2.1 asks.
    private static func seconds(_ value: Substring?) -> Int {
        guard let value, !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return 0 }
        return Int(value).map { min($0, largestDelta) } ?? largestDelta
    }
}
