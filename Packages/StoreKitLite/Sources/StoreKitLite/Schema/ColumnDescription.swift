/// A stored column as a backend sees it: a name, a type and whether it accepts `NULL`.
public struct ColumnDescription: Sendable, Hashable {
    /// The column name, unique within its entity.
    public let name: String
    /// The declared storage type.
    public let type: ColumnType
    /// Whether the column accepts `NULL`.
    public let isNullable: Bool

    public init(name: String, type: ColumnType, isNullable: Bool) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
    }
}
