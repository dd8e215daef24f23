/// Renders paths into nested values the way people write them: `vehicles[3].modelYear`.
enum FieldPath {
    /// One step of a path.
    enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The components of a Codable coding path; keys with an integer value are array positions.
    static func components(of codingPath: [any CodingKey]) -> [Component] {
        codingPath.map { key in
            if let index = key.intValue {
                return .index(index)
            }
            return .key(key.stringValue)
        }
    }

    /// `vehicles[3].modelYear`; keys that are not plain identifiers are written `["some key"]`; an empty path
    /// renders as an empty string.
    static func render(_ components: [Component]) -> String {
        var result = ""
        for component in components {
            switch component {
            case .index(let index):
                result += "[\(index)]"
            case .key(let key) where isIdentifier(key):
                if !result.isEmpty {
                    result += "."
                }
                result += key
            case .key(let key):
                result += "[\(JSONValue.string(key).formatted())]"
            }
        }
        return result
    }

    /// `base` and `suffix` joined as path text, for composing rendered paths.
    static func join(_ base: String, _ suffix: String) -> String {
        if base.isEmpty { return suffix }
        if suffix.isEmpty { return base }
        if suffix.hasPrefix("[") { return base + suffix }
        return base + "." + suffix
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || scalar == "$" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar) || scalar.value > 0x7F
        }
    }

    /// The value at `components` inside `root`, or `nil` when the path leaves the document.
    /// The paths of every number in `root` that no integer type can hold: fractions, and integers the parser kept
    /// as doubles because they overflow 64 bits.
    static func nonIntegralNumbers(in root: JSONValue) -> [[Component]] {
        var found: [[Component]] = []
        func visit(_ value: JSONValue, _ path: [Component]) {
            switch value {
            case .double:
                found.append(path)
            case .array(let elements):
                for (index, element) in elements.enumerated() { visit(element, path + [.index(index)]) }
            case .object(let object):
                for (key, member) in object { visit(member, path + [.key(key)]) }
            default:
                break
            }
        }
        visit(root, [])
        return found
    }

    static func lookUp(_ components: [Component], in root: JSONValue) -> JSONValue? {
        var current = root
        for component in components {
            switch (component, current) {
            case (.index(let index), .array):
                guard let next = current[index] else { return nil }
                current = next
            case (.index(let index), .object(let object)):
                guard let next = object[String(index)] else { return nil }
                current = next
            case (.key(let key), .object(let object)):
                guard let next = object[key] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// A short description of a found value: `string "abc"`, `number 12`, `array of 3 elements`, `null`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null:
            return "null"
        case .bool(let flag):
            return "boolean \(flag)"
        case .integer, .double:
            return "number \(value.formatted())"
        case .string(let string):
            return "string \(ModelKitText.quoted(string))"
        case .array(let elements):
            return elements.count == 1 ? "array of 1 element" : "array of \(elements.count) elements"
        case .object(let object):
            return object.count == 1 ? "object with 1 key" : "object with \(object.count) keys"
        }
    }
}
