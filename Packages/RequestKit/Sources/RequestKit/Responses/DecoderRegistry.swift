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

    /// A registered handler; `wildcardType` is what precedes `/*` in a wildcard pattern (`text`, or `*`), worked
    /// out once here rather than for every response.
    private struct Entry: Sendable {
        /// The lower-case pattern as UTF-8 bytes, compared byte by byte with each response's media type.
        let pattern: [UInt8]
        let wildcardType: [UInt8]?
        /// Whether the pattern is `*/*`.
        let matchesAnyType: Bool
        let handler: Handler
    }

    private var handlers: [Entry] = []

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
        let pattern = pattern.lowercased()
        handlers.append(
            Entry(
                pattern: Array(pattern.utf8),
                wildcardType: pattern.hasSuffix("/*") ? Array(pattern.utf8.dropLast(2)) : nil,
                matchesAnyType: pattern == "*/*",
                handler: handler
            )
        )
    }

    /// Whether some handler other than the raw-data fallback accepts this content type.
    public func canDecode(contentType: String) -> Bool {
        handler(forEssence: MediaTypeName.essence(of: contentType)) != nil
    }

    /// Decodes `data` sent with `contentType` (a missing content type is decoded as raw data).
    ///
    /// - Throws: whatever the handler throws; the client wraps it into ``RequestKitError/Code/decodingFailed``.
    public func decode(_ data: Data, contentType: String?) throws -> ResponseContent {
        guard let contentType, let handler = handler(forEssence: MediaTypeName.essence(of: contentType)) else {
            return .data(data)
        }
        return try handler(data, contentType)
    }

    /// The handler for a lower-case `type/subtype` essence.
    ///
    /// It compares contiguous UTF-8 bytes: comparing `String` with `Substring` goes by `Character`, and even
    /// indexing a substring's UTF-8 view byte by byte showed up in profiles of every decoded response.
    private func handler(forEssence essence: Substring) -> Handler? {
        var essence = essence
        return essence.withUTF8 { bytes in handler(forEssence: bytes) }
    }

    private func handler(forEssence bytes: UnsafeBufferPointer<UInt8>) -> Handler? {
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = UnsafeBufferPointer(rebasing: bytes[..<slash])
        var wildcard: Handler?
        for entry in handlers.reversed() {
            if Self.equal(entry.pattern, bytes) { return entry.handler }
            if wildcard == nil, let wildcardType = entry.wildcardType,
                entry.matchesAnyType || Self.equal(wildcardType, type)
            {
                wildcard = entry.handler
            }
        }
        if let plus = bytes.lastIndex(of: UInt8(ascii: "+")) {
            // `application/vnd.fleet+json` falls back to the handler of `application/json`.
            let suffix = UnsafeBufferPointer(rebasing: bytes[(plus + 1)...])
            let prefix = "application/".utf8
            if let match = handlers.last(where: { entry in
                entry.pattern.count == prefix.count + suffix.count && entry.pattern.starts(with: prefix)
                    && entry.pattern.dropFirst(prefix.count).elementsEqual(suffix)
            }) {
                return match.handler
            }
        }
        return wildcard
    }

    /// Whether `pattern` holds exactly `bytes`: lengths first (most patterns differ there), then `memcmp`, where a
    /// generic `elementsEqual` stepped through iterators and was a tenth of a request's time.
    private static func equal(_ pattern: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard pattern.count == bytes.count else { return false }
        guard let start = bytes.baseAddress, !pattern.isEmpty else { return pattern.isEmpty }
        return pattern.withUnsafeBufferPointer { stored in
            stored.baseAddress.map { memcmp($0, start, bytes.count) == 0 } ?? false
        }
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
                code: .decodingFailed,
                subject: contentType,
                reason: "the text is not valid \(charset)"
            )
        }
        return text
    }
}
