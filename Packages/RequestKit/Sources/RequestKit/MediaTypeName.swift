/// The parts of a `Content-Type` value RequestKit matches on: `type/subtype` in lower case and the charset.
struct MediaTypeName: Sendable, Hashable {
    let type: String
    let subtype: String
    let charset: String?

    init?(_ header: String) {
        let pieces = header.split(separator: ";")
        guard let essence = pieces.first else { return nil }
        let halves = essence.trimmingWhitespace().lowercased().split(separator: "/", maxSplits: 1)
        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
        type = String(halves[0])
        subtype = String(halves[1])
        var charset: String?
        for parameter in pieces.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "charset" {
                charset = pair[1].trimmingWhitespace().trimming("\"").lowercased()
            }
        }
        self.charset = charset
    }

    var essence: String { "\(type)/\(subtype)" }

    /// The structured syntax suffix (`json` for `application/vnd.fleet+json`), if any.
    var suffix: String? {
        guard let plus = subtype.lastIndex(of: "+") else { return nil }
        return String(subtype[subtype.index(after: plus)...])
    }

    /// Whether this type matches a pattern such as `application/json`, `text/*` or `*/*`.
    func matches(_ pattern: String) -> Bool {
        guard let pattern = MediaTypeName(pattern) else { return false }
        if pattern.type == "*" { return true }
        guard pattern.type == type else { return false }
        return pattern.subtype == "*" || pattern.subtype == subtype
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }

    func trimming(_ characters: Character) -> String {
        var text = Substring(self)
        while text.first == characters { text = text.dropFirst() }
        while text.last == characters { text = text.dropLast() }
        return String(text)
    }
}
