public import ModelKit

/// Request parameters in order: sent as the query for methods without a body, and as the body otherwise.
///
/// Values are any ``ParameterValue``: literals, variables, optionals, arrays and dictionaries.
///
/// ```swift
/// let make = "volvo"
/// let parameters: RequestParameters = ["make": make, "year": 2020, "filter": ["state": "serviced"]]
/// ```
///
/// In a JSON body, nesting stays JSON. In a query or a form body, nested values follow the bracket convention of
/// Rails, PHP and Alamofire: `filter[state]=serviced` for a dictionary, `tags[]=a&tags[]=b` for an array,
/// `rows[][id]=1` for an array of dictionaries; empty arrays and dictionaries are left out, `nil` (`null`) is an
/// empty value and booleans are `true` and `false`. The brackets are percent-encoded like any other character
/// outside the unreserved set (`filter%5Bstate%5D=serviced`), which every server decodes.
public struct RequestParameters: Sendable, Hashable, ExpressibleByDictionaryLiteral, ParameterValue {
    /// The name-value pairs in order.
    public var pairs: [(name: String, value: JSONValue)] {
        get { storage.map { ($0.name, $0.value) } }
        set { storage = newValue.map { Pair(name: $0.name, value: $0.value) } }
    }
    private var storage: [Pair]

    private struct Pair: Sendable, Hashable {
        var name: String
        var value: JSONValue
    }

    /// Creates parameters from name-value pairs.
    public init(_ pairs: [(String, JSONValue)]) {
        storage = pairs.map { Pair(name: $0.0, value: $0.1) }
    }

    /// Creates empty parameters.
    public init() {
        storage = []
    }

    /// Creates parameters from a dictionary, in the order of its sorted keys.
    public init(_ dictionary: [String: some ParameterValue]) {
        storage = dictionary.sorted { $0.key < $1.key }.map { Pair(name: $0.key, value: $0.value.parameterValue) }
    }

    public init(dictionaryLiteral elements: (String, any ParameterValue)...) {
        storage = elements.map { Pair(name: $0.0, value: $0.1.parameterValue) }
    }

    /// Whether there are no parameters.
    public var isEmpty: Bool { storage.isEmpty }

    /// The parameters as a JSON object.
    public var jsonObject: JSONValue {
        .object(JSONObject(storage.map { (key: $0.name, value: $0.value) }))
    }

    public var parameterValue: JSONValue { jsonObject }

    /// The parameters as form fields, nested values flattened with brackets (`a[b]=c`, `a[]=1&a[]=2`).
    public var formFields: [FormField] {
        var fields: [FormField] = []
        for pair in storage { Self.flatten(pair.value, name: pair.name, into: &fields) }
        return fields
    }

    private static func flatten(_ value: JSONValue, name: String, into fields: inout [FormField]) {
        switch value {
        case .array(let items):
            for item in items { flatten(item, name: name + "[]", into: &fields) }
        case .object(let object):
            for member in object { flatten(member.value, name: name + "[" + member.key + "]", into: &fields) }
        case .null:
            fields.append(FormField(name, ""))
        case .bool(let flag):
            fields.append(FormField(name, flag ? "true" : "false"))
        case .string(let text):
            fields.append(FormField(name, text))
        default:
            fields.append(FormField(name, value.formatted()))
        }
    }
}
