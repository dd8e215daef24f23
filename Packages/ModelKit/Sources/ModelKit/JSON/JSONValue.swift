/// A JSON document held as a Swift value.
///
/// `JSONValue` keeps apart what JSON text keeps apart and Foundation's `JSONDecoder` merges:
///
/// - Integers and floating-point numbers are different cases, so `1` and `1.0` survive a parse and print
///   unchanged. ``integer(_:)`` holds any integer literal that fits `Int64`; a number written with a fraction or
///   an exponent is a ``double(_:)``.
/// - Objects keep their keys in insertion order (``JSONObject``), so parsing and printing a document keeps its
///   key order.
///
/// Build values with literals, read them with subscripts and typed accessors (``stringValue``, ``intValue``, …),
/// parse them with ``init(parsing:maxDepth:)-(Data,_)`` and print them with ``formatted(_:)``.
///
/// ```swift
/// let vehicle: JSONValue = ["plate": "B-AB 123", "modelYear": 2021, "mileage": 1.5]
/// vehicle["plate"]?.stringValue   // "B-AB 123"
/// vehicle.formatted()             // {"plate":"B-AB 123","modelYear":2021,"mileage":1.5}
/// ```
///
/// Equality follows JSON's data model: objects compare equal when they hold the same keys with equal values in
/// any order, arrays compare element by element, and `.integer(1)` is *not* equal to `.double(1.0)`.
public enum JSONValue: Sendable, Hashable {
    /// The literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// A number written with a fraction or an exponent, or an integer too large for `Int64`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object whose keys keep their insertion order.
    case object(JSONObject)
}
