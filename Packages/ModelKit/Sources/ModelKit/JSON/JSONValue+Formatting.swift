public import Foundation

extension JSONValue {
    /// How ``JSONValue/formatted(_:)`` lays out JSON text.
    public struct Formatting: Sendable, Hashable {
        /// Spaces per nesting level; `nil` prints everything on one line without spaces.
        public var indentation: Int?
        /// Whether object keys are printed in ascending order instead of insertion order.
        public var sortsKeys: Bool

        /// Creates a formatting.
        public init(indentation: Int? = nil, sortsKeys: Bool = false) {
            self.indentation = indentation
            self.sortsKeys = sortsKeys
        }

        /// One line, no spaces, keys in insertion order: `{"a":[1,2.5]}`.
        public static let compact = Formatting()

        /// Two spaces per level, one member or element per line, `"key": value`, keys in insertion order.
        public static let pretty = Formatting(indentation: 2)
    }

    /// The value as JSON text.
    ///
    /// Strings escape `"`, `\`, control characters (as `\n`, `\t`, … or `\u00XX`) and U+2028/U+2029; everything
    /// else is written as UTF-8, `/` included. Doubles print in the shortest form that reads back to the same
    /// value and always with a fraction or exponent, so `1.0` prints as `1.0` and parses back as a double.
    /// Non-finite doubles (which the parser never produces) print as `null`.
    public func formatted(_ formatting: Formatting = .compact) -> String {
        var writer = JSONWriter(formatting: formatting)
        writer.write(self, level: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }

    /// The value as UTF-8 encoded JSON text; see ``formatted(_:)``.
    public func jsonData(_ formatting: Formatting = .compact) -> Data {
        var writer = JSONWriter(formatting: formatting)
        writer.write(self, level: 0)
        return Data(writer.output)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { formatted() }
}
