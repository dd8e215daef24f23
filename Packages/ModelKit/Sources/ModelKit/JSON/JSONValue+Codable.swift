extension JSONValue: Codable {
    /// Decodes any JSON value through a `Decoder`, for use as a field of another `Codable` model.
    ///
    /// What survives depends on the decoder, because `Decoder` does not expose JSON's syntax:
    ///
    /// - Integer versus floating point: a number that decodes as `Int64` becomes ``integer(_:)``. Foundation's
    ///   `JSONDecoder` decodes `1.0` as the integer `1`, so through it `1.0` comes back as `.integer(1)`. Parse
    ///   with ``init(parsing:maxDepth:)-(Data,_)`` (or decode through ``ModelCoding/decode(_:from:)`` at the
    ///   top level) to keep the distinction.
    /// - Key order: keyed containers do not promise an order; through `JSONDecoder` the members of an object
    ///   arrive in an unspecified order.
    /// - Non-finite numbers: under ``ModelCoding``'s settings the strings `"NaN"`, `"Infinity"` and
    ///   `"-Infinity"` stay strings here, since a string is tried before a number is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let object = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var members = JSONObject()
            for key in object.allKeys {
                members.append(key.stringValue, try object.decode(JSONValue.self, forKey: key))
            }
            self = .object(members)
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected a JSON value")
            )
        }
    }

    /// Encodes the value through an `Encoder`; objects are encoded in insertion order (an encoder that sorts
    /// keys, such as ``ModelCoding``'s, sorts them).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for (key, value) in object {
                try container.encode(value, forKey: JSONCodingKey(key))
            }
        }
    }
}
