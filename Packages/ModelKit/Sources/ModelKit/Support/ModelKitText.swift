/// Small text helpers shared by the error descriptions.
enum ModelKitText {
    /// The longest excerpt of input an error message quotes.
    static let excerptLimit = 40

    /// `text`, cut to ``excerptLimit`` characters with a trailing ellipsis when longer.
    static func truncated(_ text: String, limit: Int = excerptLimit) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    /// Two uppercase hexadecimal digits.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// `text` as a JSON string literal, cut to ``excerptLimit`` characters.
    static func quoted(_ text: String) -> String {
        JSONValue.string(truncated(text)).formatted()
    }
}
