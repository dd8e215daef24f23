public import Foundation
import ModelKit

/// Decodes response bodies by media type into ``ResponseContent``.
///
/// The standard registry decodes `application/json` and every `+json` type to ``ResponseContent/json(_:)``;
/// `text/*`, `application/xml` and every `+xml` type, `application/javascript`, YAML, TOML, GraphQL, SQL and
/// newline-delimited JSON to ``ResponseContent/text(_:)``; `application/x-www-form-urlencoded` to
/// ``ResponseContent/form(_:)``; and everything else, `application/octet-stream` included, to ``ResponseContent/data(_:)``. Register handlers
/// for your own types; the most recently registered matching handler wins, and exact types beat wildcards.
///
/// ```swift
/// var decoders = DecoderRegistry.standard
/// decoders.register("text/csv") { data, _ in
///     .custom(CSV(parsing: data))
/// }
/// ```
public struct DecoderRegistry: Sendable {
    /// Decodes a body. The second argument is the response's `Content-Type` value.
    public typealias Handler = @Sendable (Data, String) throws -> ResponseContent

    /// Where a registered pattern's bytes sit in ``patternBytes``, and what it matches. It holds no references,
    /// so a lookup walks the patterns without counting any: every response looks here, from every core, and the
    /// registry is shared by all of them.
    private struct Entry: Sendable {
        /// The lower-case pattern: `length` UTF-8 bytes from `start` in ``patternBytes``.
        let start: Int
        let length: Int
        /// For a wildcard pattern, the length of what precedes `/*` (`text`, or `*`); `nil` otherwise.
        let wildcardLength: Int?
        /// Whether the pattern is `*/*`.
        let matchesAnyType: Bool
    }

    /// The patterns in registration order, with their bytes one after another in `patternBytes` and their
    /// handlers at the same index in `handlers`.
    private var entries: [Entry] = []
    private var patternBytes: [UInt8] = []
    private var handlers: [Handler] = []

    /// A registry with no handlers: every body becomes ``ResponseContent/data(_:)``.
    public static var empty: DecoderRegistry { DecoderRegistry() }

    /// The registry with JSON, text and form handlers.
    public static var standard: DecoderRegistry {
        var registry = DecoderRegistry()
        registry.register("text/*") { data, contentType in
            .text(try Self.text(from: data, contentType: contentType))
        }
        registry.register("application/x-www-form-urlencoded") { data, contentType in
            .form(FormField.decode(try Self.text(from: data, contentType: contentType)))
        }
        for textual in Self.textualApplicationTypes {
            registry.register(textual) { data, contentType in
                .text(try Self.text(from: data, contentType: contentType))
            }
        }
        registry.register("application/json") { data, _ in
            .json(try JSONValue(parsing: data))
        }
        return registry
    }

    /// Types outside `text/*` that are text: XML (and through it every `+xml` type, such as `image/svg+xml`),
    /// scripts, YAML, TOML, GraphQL, SQL and event streams.
    static let textualApplicationTypes = [
        "application/xml", "application/javascript", "application/ecmascript", "application/x-javascript",
        "application/yaml", "application/x-yaml", "application/toml", "application/graphql", "application/sql",
        "application/x-ndjson", "application/jsonl",
    ]

    private init() {}

    /// Registers a handler for a media type pattern such as `text/csv`, `image/*` or `*/*`.
    public mutating func register(_ pattern: String, handler: @escaping Handler) {
        let pattern = Array(pattern.lowercased().utf8)
        let isWildcard = pattern.count >= 2 && pattern.suffix(2).elementsEqual("/*".utf8)
        entries.append(
            Entry(
                start: patternBytes.count,
                length: pattern.count,
                wildcardLength: isWildcard ? pattern.count - 2 : nil,
                matchesAnyType: pattern.elementsEqual("*/*".utf8)
            )
        )
        patternBytes += pattern
        handlers.append(handler)
    }

    /// Whether some handler other than the raw-data fallback accepts this content type.
    public func canDecode(contentType: String) -> Bool {
        handlerIndex(forContentType: contentType) != nil
    }

    /// Decodes `data` sent with `contentType` (a missing content type is decoded as raw data).
    ///
    /// - Throws: whatever the handler throws; the client wraps it into ``RequestKitError/Code/decodingFailed``.
    public func decode(_ data: Data, contentType: String?) throws -> ResponseContent {
        guard let contentType, let index = handlerIndex(forContentType: contentType) else {
            return .data(data)
        }
        return try handlers[index](data, contentType)
    }

    /// The index of the handler for a `Content-Type` value, matched on its lower-case `type/subtype`.
    ///
    /// It compares contiguous UTF-8 bytes: comparing `String` with `Substring` goes by `Character`, and even
    /// indexing a substring's UTF-8 view byte by byte showed up in profiles of every decoded response.
    private func handlerIndex(forContentType contentType: String) -> Int? {
        MediaTypeName.withEssence(of: contentType) { essence in handlerIndex(forEssence: essence) }
    }

    private func handlerIndex(forEssence bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = UnsafeBufferPointer(rebasing: bytes[..<slash])
        return patternBytes.withUnsafeBufferPointer { patterns in
            entries.withUnsafeBufferPointer { entries in
                var wildcard: Int?
                for index in entries.indices.reversed() {
                    let entry = entries[index]
                    if Self.equal(patterns, entry.start, entry.length, bytes) { return index }
                    if wildcard == nil, let wildcardLength = entry.wildcardLength,
                        entry.matchesAnyType || Self.equal(patterns, entry.start, wildcardLength, type)
                    {
                        wildcard = index
                    }
                }
                if let plus = bytes.lastIndex(of: UInt8(ascii: "+")) {
                    // `application/vnd.fleet+json` falls back to the handler of `application/json`.
                    let suffix = UnsafeBufferPointer(rebasing: bytes[(plus + 1)...])
                    let prefix = Array("application/".utf8)
                    for index in entries.indices.reversed() {
                        let entry = entries[index]
                        guard entry.length == prefix.count + suffix.count else { continue }
                        let start = entry.start
                        if patterns[start..<start + prefix.count].elementsEqual(prefix),
                            Self.equal(patterns, start + prefix.count, suffix.count, suffix)
                        {
                            return index
                        }
                    }
                }
                return wildcard
            }
        }
    }

    /// Whether the `length` pattern bytes from `start` are exactly `bytes`: lengths first (most patterns differ
    /// there), then `memcmp`, where a generic `elementsEqual` stepped through iterators and was a tenth of a
    /// request's time.
    private static func equal(
        _ patterns: UnsafeBufferPointer<UInt8>,
        _ start: Int,
        _ length: Int,
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard length == bytes.count else { return false }
        guard length > 0, let stored = patterns.baseAddress, let given = bytes.baseAddress else { return true }
        return memcmp(stored + start, given, length) == 0
    }

    /// Decodes text with the charset of `contentType`; UTF-8 when none is named.
    static func text(from data: Data, contentType: String) throws -> String {
        let charset = MediaTypeName(contentType)?.charset ?? "utf-8"
        let encoding: String.Encoding =
            switch charset {
            case "iso-8859-1", "latin1": .isoLatin1
            case "us-ascii", "ascii": .ascii
            case "utf-16": .utf16
            default: .utf8
            }
        guard let text = String(data: data, encoding: encoding) else {
            throw RequestKitError(
                .decodingFailed,
                subject: contentType,
                reason: "the text is not valid \(charset)"
            )
        }
        return text
    }
}
