/// The members of a JSON object, in insertion order.
///
/// `JSONObject` behaves like a dictionary from `String` to ``JSONValue`` that remembers the order keys were
/// first inserted, so a parsed document prints with its keys in the order they were written. Lookup by key is
/// a linear scan for small objects and uses a hash index once an object grows beyond a few members.
///
/// Equality ignores order: two objects are equal when they hold the same keys with equal values.
public struct JSONObject: Sendable {
    /// Objects up to this size are searched linearly; larger ones keep a hash index.
    private static let indexThreshold = 12

    private var storedKeys: [String]
    private var storedValues: [JSONValue]
    private var index: [String: Int]?

    /// Creates an empty object.
    public init() {
        storedKeys = []
        storedValues = []
        index = nil
    }

    /// Creates an object from key-value pairs, keeping their order; a repeated key keeps its first position and
    /// its last value.
    public init(_ members: some Sequence<(key: String, value: JSONValue)>) {
        self.init()
        for (key, value) in members {
            self[key] = value
        }
    }

    /// The number of members.
    public var count: Int { storedKeys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { storedKeys.isEmpty }

    /// The keys in insertion order.
    public var keys: [String] { storedKeys }

    /// The values in key order.
    public var values: [JSONValue] { storedValues }

    /// The value for `key`, or `nil`; assigning `nil` removes the member, assigning a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return storedValues[position]
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    storedValues[position] = newValue
                } else {
                    removeMember(at: position)
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// The position of `key` in ``keys``, or `nil`.
    public func position(of key: String) -> Int? {
        if let index {
            return index[key]
        }
        return storedKeys.firstIndex(of: key)
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool {
        position(of: key) != nil
    }

    /// Appends a member without checking for an existing key; the caller has checked.
    mutating func append(_ key: String, _ value: JSONValue) {
        storedKeys.append(key)
        storedValues.append(value)
        if index != nil {
            index?[key] = storedKeys.count - 1
        } else if storedKeys.count > Self.indexThreshold {
            var built = [String: Int](minimumCapacity: storedKeys.count * 2)
            for (position, key) in storedKeys.enumerated() {
                built[key] = position
            }
            index = built
        }
    }

    private mutating func removeMember(at position: Int) {
        storedKeys.remove(at: position)
        storedValues.remove(at: position)
        if index != nil {
            var built = [String: Int](minimumCapacity: storedKeys.count * 2)
            for (position, key) in storedKeys.enumerated() {
                built[key] = position
            }
            index = built
        }
    }

    /// Reserves room for `capacity` members.
    public mutating func reserveCapacity(_ capacity: Int) {
        storedKeys.reserveCapacity(capacity)
        storedValues.reserveCapacity(capacity)
    }
}

extension JSONObject: Sequence {
    /// Iterates the members in insertion order.
    public struct Iterator: IteratorProtocol {
        private let object: JSONObject
        private var position = 0

        init(_ object: JSONObject) {
            self.object = object
        }

        /// The next member, or `nil` after the last.
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard position < object.storedKeys.count else { return nil }
            defer { position += 1 }
            return (object.storedKeys[position], object.storedValues[position])
        }
    }

    /// An iterator over the members in insertion order.
    public func makeIterator() -> Iterator {
        Iterator(self)
    }

    /// The number of members.
    public var underestimatedCount: Int { storedKeys.count }
}

extension JSONObject: Hashable {
    /// Whether both objects hold the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in self {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keeping the literal's key order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        reserveCapacity(elements.count)
        for (key, value) in elements {
            self[key] = value
        }
    }
}
