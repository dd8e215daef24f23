extension JSONValue {
    /// The member named `key` when this is an object, otherwise `nil`.
    ///
    /// Assigning through the subscript on an object sets, appends or (with `nil`) removes the member; on any
    /// other value the assignment is ignored.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let object) = self else { return nil }
            return object[key]
        }
        set {
            guard case .object(var object) = self else { return }
            self = .null
            object[key] = newValue
            self = .object(object)
        }
    }

    /// The element at `index` when this is an array and the index is in range, otherwise `nil`.
    ///
    /// Assigning a value to an in-range index of an array replaces the element; other assignments are ignored.
    public subscript(index: Int) -> JSONValue? {
        get {
            guard case .array(let array) = self, array.indices.contains(index) else { return nil }
            return array[index]
        }
        set {
            guard case .array(var array) = self, array.indices.contains(index), let newValue else { return }
            self = .null
            array[index] = newValue
            self = .array(array)
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, when this is ``bool(_:)``.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The integer, when this is ``integer(_:)`` or a ``double(_:)`` with an integral value that fits `Int`.
    public var intValue: Int? {
        switch self {
        case .integer(let value):
            return Int(exactly: value)
        case .double(let value):
            return Int(exactly: value)
        default:
            return nil
        }
    }

    /// The integer, when this is ``integer(_:)`` or a ``double(_:)`` with an integral value that fits `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .double(let value):
            return Int64(exactly: value)
        default:
            return nil
        }
    }

    /// The number as a `Double`, for both ``integer(_:)`` and ``double(_:)``.
    ///
    /// Integers beyond 2^53 are rounded to the nearest representable `Double`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value):
            return Double(value)
        case .double(let value):
            return value
        default:
            return nil
        }
    }

    /// The string, when this is ``string(_:)``.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The elements, when this is ``array(_:)``.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The members, when this is ``object(_:)``.
    public var objectValue: JSONObject? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// A short name of the value's kind: `null`, `bool`, `integer`, `double`, `string`, `array` or `object`.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
