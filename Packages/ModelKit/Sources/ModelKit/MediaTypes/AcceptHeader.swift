/// A parsed `Accept` header: media ranges with quality values, for content negotiation.
///
/// ```swift
/// let accept = try AcceptHeader(parsing: "application/json;q=0.9, application/problem+json, */*;q=0.1")
/// accept.bestMatch(from: [.plainText, .json])   // .json (q=0.9 beats text/plain's q=0.1)
/// ```
///
/// Matching follows RFC 9110, section 12.5.1: an offered type takes the quality of the *most specific* range
/// that matches it (a range with parameters over one without, `text/html` over `text/*` over `*/*`); a
/// quality of 0 means "not acceptable". An empty header accepts everything, like an absent one.
public struct AcceptHeader: Sendable, Hashable, CustomStringConvertible {
    /// A media range and its quality.
    public struct Entry: Sendable, Hashable {
        /// The range, possibly with wildcards; its parameters exclude `q`.
        public let range: MIMEType
        /// The quality from 0 to 1; 1 when the header gave none.
        public let quality: Double

        /// Creates an entry; the quality is clamped to 0...1.
        public init(range: MIMEType, quality: Double = 1) {
            self.range = range
            self.quality = min(1, max(0, quality))
        }
    }

    /// The ranges in header order.
    public let entries: [Entry]

    /// An `Accept` header from entries; no entries accepts everything.
    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// Parses an `Accept` header value such as `text/html, application/json;q=0.8`.
    ///
    /// Parameters after `q` are accept extensions and are ignored.
    ///
    /// - Throws: ``MIMETypeError`` for a malformed range or quality value.
    public init(parsing text: String) throws(MIMETypeError) {
        var scanner = MIMETypeScanner(text)
        var entries: [Entry] = []
        scanner.skipWhitespace()
        while !scanner.isAtEnd {
            let (range, quality) = try scanner.mediaType(allowingQuality: true)
            entries.append(Entry(range: range, quality: quality ?? 1))
            guard try scanner.listSeparator() else { break }
        }
        self.entries = entries
    }

    /// The quality `self` gives `type`: that of the most specific matching range, or 0 when none matches.
    public func quality(of type: MIMEType) -> Double {
        guard !entries.isEmpty else { return 1 }
        var best: (specificity: Int, quality: Double)?
        for entry in entries where entry.range.matches(type) {
            let specificity = Self.specificity(of: entry.range)
            if let current = best, current.specificity >= specificity {
                continue
            }
            best = (specificity, entry.quality)
        }
        return best?.quality ?? 0
    }

    /// Whether `type` has a quality above 0.
    public func accepts(_ type: MIMEType) -> Bool {
        quality(of: type) > 0
    }

    /// The offered type with the highest quality above 0; ties go to the one offered first (the server's
    /// preference). `nil` when nothing offered is acceptable.
    public func bestMatch(from offered: [MIMEType]) -> MIMEType? {
        var best: (type: MIMEType, quality: Double)?
        for type in offered {
            let quality = quality(of: type)
            if quality > 0, quality > (best?.quality ?? 0) {
                best = (type, quality)
            }
        }
        return best?.type
    }

    /// The header value: `range;q=0.5, …`.
    public var description: String {
        entries.map { entry in
            entry.quality == 1 ? entry.range.description : "\(entry.range);q=\(Self.formatQuality(entry.quality))"
        }
        .joined(separator: ", ")
    }

    private static func specificity(of range: MIMEType) -> Int {
        if range.type == "*" { return 0 }
        if range.subtype == "*" { return 1 }
        return 2 + range.parameters.count
    }

    private static func formatQuality(_ quality: Double) -> String {
        var text = String(Int((quality * 1000).rounded()))
        while text.count < 4 {
            text = "0" + text
        }
        text.insert(".", at: text.index(text.startIndex, offsetBy: 1))
        while text.hasSuffix("0") {
            text.removeLast()
        }
        if text.hasSuffix(".") {
            text.removeLast()
        }
        return text
    }
}
