import ModelKit

/// The parts of a `Content-Type` value RequestKit matches on, parsed by ModelKit's `MediaType`.
struct MediaTypeName: Sendable, Hashable {
    let mediaType: MediaType

    init?(_ header: String) {
        guard let mediaType = try? MediaType(parsing: header) else { return nil }
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
    static func essence(of header: String) -> String {
        let end = header.firstIndex(of: ";") ?? header.endIndex
        var essence = header[..<end]
        while essence.first == " " || essence.first == "\t" { essence = essence.dropFirst() }
        while essence.last == " " || essence.last == "\t" { essence = essence.dropLast() }
        return essence.lowercased()
    }

    /// Whether a `type/subtype` essence is JSON: `application/json` or a `+json` type.
    static func isJSON(essence: String) -> Bool {
        essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }

    /// Whether this type matches a pattern such as `application/json`, `text/*` or `*/*`.
    func matches(_ pattern: String) -> Bool {
        guard let range = try? MediaType(parsing: pattern) else { return false }
        return range.withoutParameters.matches(mediaType)
    }
}
