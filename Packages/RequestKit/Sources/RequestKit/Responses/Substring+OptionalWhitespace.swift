extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    ///
    /// Foundation's `trimmingCharacters(in: .whitespaces)` goes through `NSString` on Linux, which showed up in
    /// profiles of every cache lookup; header values only ever need these two ASCII characters trimmed.
    func trimmingOptionalWhitespace() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start != end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") {
            start = bytes.index(after: start)
        }
        while end != start {
            let last = bytes.index(before: end)
            guard bytes[last] == UInt8(ascii: " ") || bytes[last] == UInt8(ascii: "\t") else { break }
            end = last
        }
        // Spaces and tabs are single-byte scalars, so `start` and `end` are character boundaries.
        return self[start..<end]
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingOptionalWhitespace() -> Substring {
        self[...].trimmingOptionalWhitespace()
    }
}
