public import ModelKit

/// Request parameters in order: sent as the query for methods without a body, and as the body otherwise.
///
/// ```swift
/// let parameters: Parameters = ["make": "volvo", "year": 2020]
/// ```
public struct Parameters: Sendable, Hashable, ExpressibleByDictionaryLiteral {
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

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Whether there are no parameters.
    public var isEmpty: Bool { storage.isEmpty }

    /// The parameters as a JSON object.
    public var jsonObject: JSONValue {
        .object(JSONObject(storage.map { (key: $0.name, value: $0.value) }))
    }

    /// The parameters as form fields; arrays repeat the name, `null` becomes an empty value.
    public var formFields: [FormField] {
        storage.flatMap { pair -> [FormField] in
            switch pair.value {
            case .array(let items): items.map { FormField(pair.name, Self.text(of: $0)) }
            default: [FormField(pair.name, Self.text(of: pair.value))]
            }
        }
    }

    private static func text(of value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): text
        default: value.formatted()
        }
    }
}
