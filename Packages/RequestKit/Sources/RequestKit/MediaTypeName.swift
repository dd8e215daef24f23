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

    /// Whether this type matches a pattern such as `application/json`, `text/*` or `*/*`.
    func matches(_ pattern: String) -> Bool {
        guard let range = try? MediaType(parsing: pattern) else { return false }
        return range.withoutParameters.matches(mediaType)
    }
}
