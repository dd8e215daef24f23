public import Foundation

/// The one place that configures how models become JSON and back, so a model encodes to the same bytes over
/// HTTP and in storage.
///
/// The settings:
///
/// | Aspect | Setting |
/// |---|---|
/// | Dates | RFC 3339 in UTC: `2024-03-01T08:15:30Z`, with milliseconds when the date has a fraction of a second, `2024-03-01T08:15:30.250Z`. Decoding accepts no fraction or up to nine fraction digits, and `Z` or a numeric offset such as `+01:00`. Encoding rounds to the nearest millisecond and supports years 1 to 9999. Whole-second dates are thus readable by Foundation's `.iso8601` strategy. |
/// | Keys | As declared: property names (or your `CodingKeys`) are used unchanged, no snake case conversion. |
/// | Non-finite floats | Encoded as the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, and decoded from them. |
/// | Output | Compact, keys sorted, `/` not escaped: deterministic bytes. |
/// | `Data` | Base64 (Foundation's default). |
///
/// Decode with ``decode(_:from:)`` to get a ``ModelDecodingError`` that names the path and the found value
/// instead of Foundation's `DecodingError` dump.
public enum ModelCoding {
    /// The strings non-finite floating-point numbers are encoded as and decoded from.
    public static let positiveInfinity = "Infinity"
    /// See ``positiveInfinity``.
    public static let negativeInfinity = "-Infinity"
    /// See ``positiveInfinity``.
    public static let notANumber = "NaN"

    /// A new encoder with the model settings. Pass `prettyPrinted: true` for human-readable output (still with
    /// sorted keys).
    public static func makeEncoder(prettyPrinted: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .useDefaultKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            guard let text = ISO8601Timestamp.format(date) else {
                throw EncodingError.invalidValue(
                    date,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription: "the date lies outside the years 1 to 9999"
                    )
                )
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: positiveInfinity,
            negativeInfinity: negativeInfinity,
            nan: notANumber
        )
        encoder.outputFormatting =
            prettyPrinted
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A new decoder with the model settings.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .useDefaultKeys
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: dateExpectation)
            }
            return date
        }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: positiveInfinity,
            negativeInfinity: negativeInfinity,
            nan: notANumber
        )
        return decoder
    }

    /// What a failed date decoding reports it expected.
    static let dateExpectation = "expected an ISO 8601 date such as 2024-03-01T08:15:30.250Z"

    // Configured once; JSONEncoder and JSONDecoder are safe to use from several threads at once.
    private static let sharedEncoder = makeEncoder()
    private static let sharedDecoder = makeDecoder()

    /// The text the model settings write for a date: RFC 3339 in UTC, with milliseconds only when the date has a
    /// fraction of a second (`2024-05-01T09:30:00Z`, `2024-05-01T09:30:00.250Z`), or `nil` for a date outside the
    /// years 1 to 9999 (which the encoder refuses).
    ///
    /// Code that builds a ``JSONValue`` by hand, for a hot path that skips `JSONEncoder`, uses it to write dates
    /// exactly as ``encode(_:)`` does.
    public static func timestamp(_ date: Date) -> String? {
        ISO8601Timestamp.format(date)
    }

    /// Encodes `value` with the model settings.
    ///
    /// - Throws: `EncodingError` from Foundation, for example for a date outside the years 1 to 9999.
    public static func encode(_ value: some Encodable) throws -> Data {
        try sharedEncoder.encode(value)
    }

    /// Decodes a `T` from JSON with the model settings.
    ///
    /// On success this costs what `JSONDecoder` costs. On failure the input is parsed once more as a
    /// ``JSONValue`` to describe the value found at the failing path, and the `DecodingError` becomes a
    /// ``ModelDecodingError`` such as `vehicles[3].modelYear: expected Int, found string "abc"`.
    ///
    /// Decoding ``JSONValue`` itself uses ModelKit's parser, so `1` and `1.0` and the key order survive.
    ///
    /// - Throws: ``ModelDecodingError`` for malformed JSON and for values that do not fit `T`. Errors that `T`'s
    ///   own `init(from:)` throws and that are not `DecodingError`s pass through unchanged.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if type == JSONValue.self {
            do {
                if let value = try JSONValue(parsing: data) as? T {
                    return value
                }
            } catch {
                throw ModelDecodingError(malformedJSON: error)
            }
        }
        do {
            return try sharedDecoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw ModelDecodingError(error, input: data)
        }
    }
}
