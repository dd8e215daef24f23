public import Foundation
public import ModelKit

/// A response body decoded by its media type, without a model.
///
/// Which case a body becomes is decided by the ``DecoderRegistry``: JSON becomes ``json(_:)``, text
/// ``text(_:)``, form data ``form(_:)``, anything else ``data(_:)``, and custom handlers return ``custom(_:)``.
public enum ResponseContent: Sendable {
    /// No body (for example `204 No Content` or a `HEAD` request).
    case empty
    /// A JSON document, numbers kept as written (`1` and `1.0` differ).
    case json(JSONValue)
    /// Text decoded with the charset the response named (UTF-8 when it named none).
    case text(String)
    /// `application/x-www-form-urlencoded` fields in order.
    case form([FormField])
    /// Bytes of a media type without a decoder, or `application/octet-stream`.
    case data(Data)
    /// The value a custom decoder produced.
    case custom(any Sendable)

    /// The JSON value, if this is JSON.
    public var json: JSONValue? {
        if case .json(let value) = self { return value }
        return nil
    }

    /// The text, if this is text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
