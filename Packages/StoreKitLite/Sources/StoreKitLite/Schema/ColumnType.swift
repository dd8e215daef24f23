/// The declared type of a stored column: one of the storage classes of ``StoreValue`` other than `NULL`.
public enum ColumnType: String, Sendable, Hashable, CaseIterable {
    case integer
    case real
    case text
    case blob
}
