import ModelKit

/// The parts of a `Content-Type` value RequestKit matches on, parsed by ModelKit's `MIMEType`.
struct MediaTypeName: Sendable, Hashable {
    let mediaType: MIMEType

    init?(_ header: String) {
        guard let mediaType = try? MIMEType(parsing: header) else { return nil }
        self.mediaType = mediaType
    }

    var type: String { mediaType.type }
    var subtype: String { mediaType.subtype }
    var charset: String? { mediaType.charset }
    var essence: String { "\(type)/\(subtype)" }
    /// The structured syntax suffix (`json` for `application/vnd.fleet+json`), if any.
    var suffix: String? { mediaType.suffix }
    var isJSON: Bool { mediaType.isJSON }

    /// `type/subtype` in lower case without parameters, found without a full parse (the hot path of decoding).
    ///
    /// It scans UTF-8 bytes and allocates only when the header has upper-case letters.
    static func essence(of header: String) -> Substring {
        let bytes = header.utf8
        var start = bytes.startIndex
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        while start != end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") {
            start = bytes.index(after: start)
        }
        while start != end {
            let last = bytes[bytes.index(before: end)]
            guard last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") else { break }
            end = bytes.index(before: end)
        }
        // The bounds sit next to ASCII bytes (`;`, spaces, tabs) or at the ends, so they are character boundaries.
        let essence = header[start..<end]
        if essence.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
            return Substring(essence.lowercased())
        }
        return essence
    }

    /// Whether a `type/subtype` essence is JSON: `application/json` or a `+json` type.
    static func isJSON(essence: Substring) -> Bool {
        essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }

    /// Whether this type matches a pattern such as `application/json`, `text/*` or `*/*`.
    func matches(_ pattern: String) -> Bool {
        guard let range = try? MIMEType(parsing: pattern) else { return false }
        return range.withoutParameters.matches(mediaType)
    }
}
