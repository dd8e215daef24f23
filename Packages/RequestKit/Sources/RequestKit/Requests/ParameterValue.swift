public import Foundation
public import ModelKit

/// A value that can be a request parameter: strings, numbers, booleans, `JSONValue`, and optionals, arrays and
/// `String`-keyed dictionaries of them.
///
/// ``RequestParameters`` takes its values through this protocol, so variables work as well as literals:
///
/// ```swift
/// let make = "volvo"
/// let counts: [String: Int] = ["cars": 3, "vans": 1]
/// let parameters: RequestParameters = ["make": make, "year": 2020, "counts": counts, "tags": ["a", "b"]]
/// ```
///
/// A dictionary literal whose values have different types (`["make": "volvo", "year": 2020]` nested inside
/// parameters) has no single Swift type; write it as a `JSONValue` (`["make": "volvo", "year": 2020] as JSONValue`)
/// or as ``RequestParameters``. Dictionaries are sent with their keys sorted, so the request is the same every time.
public protocol ParameterValue: Sendable {
    /// The value as JSON, the form all parameters take before they are encoded.
    var parameterValue: JSONValue { get }
}

extension JSONValue: ParameterValue {
    public var parameterValue: JSONValue { self }
}

extension String: ParameterValue {
    public var parameterValue: JSONValue { .string(self) }
}

extension Substring: ParameterValue {
    public var parameterValue: JSONValue { .string(String(self)) }
}

extension Bool: ParameterValue {
    public var parameterValue: JSONValue { .bool(self) }
}

extension Int: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension Int8: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension Int16: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension Int32: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension Int64: ParameterValue {
    public var parameterValue: JSONValue { .integer(self) }
}

extension UInt: ParameterValue {
    /// Values above `Int64.max` are sent as doubles.
    public var parameterValue: JSONValue { Int64(exactly: self).map(JSONValue.integer) ?? .double(Double(self)) }
}

extension UInt8: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension UInt16: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension UInt32: ParameterValue {
    public var parameterValue: JSONValue { .integer(Int64(self)) }
}

extension UInt64: ParameterValue {
    /// Values above `Int64.max` are sent as doubles.
    public var parameterValue: JSONValue { Int64(exactly: self).map(JSONValue.integer) ?? .double(Double(self)) }
}

extension Double: ParameterValue {
    public var parameterValue: JSONValue { .double(self) }
}

extension Float: ParameterValue {
    public var parameterValue: JSONValue { .double(Double(self)) }
}

extension UUID: ParameterValue {
    /// The UUID string in upper case, as `uuidString` gives it.
    public var parameterValue: JSONValue { .string(uuidString) }
}

extension URL: ParameterValue {
    public var parameterValue: JSONValue { .string(absoluteString) }
}

extension Optional: ParameterValue where Wrapped: ParameterValue {
    /// `nil` is `null`: an empty value in a query or form, `null` in JSON.
    public var parameterValue: JSONValue { map(\.parameterValue) ?? .null }
}

extension Array: ParameterValue where Element: ParameterValue {
    public var parameterValue: JSONValue { .array(map(\.parameterValue)) }
}

extension Dictionary: ParameterValue where Key == String, Value: ParameterValue {
    /// An object with the keys in sorted order.
    public var parameterValue: JSONValue {
        .object(JSONObject(sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.parameterValue) }))
    }
}
