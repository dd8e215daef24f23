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

    /// Calls `body` with the UTF-8 bytes of the header's `type/subtype` in lower case without parameters: the
    /// bytes of the header itself unless it has upper-case letters.
    static func withEssence<Result>(of header: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var header = header
        return header.withUTF8 { bytes in
            func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var start = 0
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            let essence = UnsafeBufferPointer(rebasing: bytes[start..<end])
            func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
            guard essence.contains(where: isUpper) else { return body(essence) }
            // Media type names are ASCII (RFC 6838); other bytes are kept as they are and match no pattern.
            let lowered = essence.map { isUpper($0) ? $0 + 32 : $0 }
            return lowered.withUnsafeBufferPointer(body)
        }
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
