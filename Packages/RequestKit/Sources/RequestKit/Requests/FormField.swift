/// One `name=value` field of an `application/x-www-form-urlencoded` body or a query.
public struct FormField: Sendable, Hashable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
