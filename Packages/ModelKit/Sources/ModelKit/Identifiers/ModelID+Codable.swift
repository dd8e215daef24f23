extension ModelID: Codable {
    /// Decodes a UUID string; anything else is a `DecodingError.dataCorrupted` naming the found text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ModelID(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected a UUID string",
                    underlyingError: error
                )
            )
        }
    }

    /// Encodes the lowercase UUID string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}

extension ModelID: CustomStringConvertible {
    /// The lowercase UUID string.
    public var description: String { uuidString }
}
