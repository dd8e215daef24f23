public import Foundation

extension JSONValue {
    /// The nesting limit the parser applies unless told otherwise.
    public static let defaultMaxDepth = 512

    /// Parses a JSON text from UTF-8 bytes.
    ///
    /// The parser follows RFC 8259 strictly and decides the following where the RFC leaves room:
    ///
    /// - Any value may be the top-level value; a leading UTF-8 byte order mark is skipped; whitespace may
    ///   surround the value, anything else after it is an error.
    /// - An integer literal that fits `Int64` becomes ``integer(_:)``. An integer literal beyond `Int64` becomes
    ///   ``double(_:)`` rounded to the nearest `Double` (so `18446744073709551616` loses its last digits). `-0`
    ///   becomes `.integer(0)`; `-0.0` stays `.double(-0.0)`.
    /// - A number with a fraction or an exponent becomes ``double(_:)``, correctly rounded. One whose magnitude
    ///   overflows `Double` (`1e400`) throws ``JSONParseError/Code/numberOutOfRange``; one that underflows
    ///   (`1e-400`) becomes `0.0`. `NaN` and `Infinity` are not JSON and are rejected.
    /// - A key repeated within one object throws ``JSONParseError/Code/duplicateKey``.
    /// - Strings must be well-formed UTF-8; `\u` escapes must pair surrogates.
    /// - Arrays and objects nested deeper than `maxDepth` throw ``JSONParseError/Code/nestingTooDeep`` instead of
    ///   exhausting the stack. Keep `maxDepth` in the thousands at most.
    ///
    /// - Parameters:
    ///   - data: The UTF-8 encoded JSON text.
    ///   - maxDepth: The deepest nesting of arrays and objects accepted.
    /// - Throws: ``JSONParseError`` naming the position, what was expected and what was found.
    public init(parsing data: Data, maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(raw.assumingMemoryBound(to: UInt8.self), maxDepth: maxDepth)
            }
        }
        self = try result.get()
    }

    /// Parses a JSON text from UTF-8 bytes; see ``init(parsing:maxDepth:)-(Data,_)``.
    public init(parsing bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer, maxDepth: maxDepth)
            }
        }
        self = try result.get()
    }

    /// Parses a JSON text held in a string; see ``init(parsing:maxDepth:)-(Data,_)``.
    public init(parsing text: String, maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer, maxDepth: maxDepth)
            }
        }
        self = try result.get()
    }
}
