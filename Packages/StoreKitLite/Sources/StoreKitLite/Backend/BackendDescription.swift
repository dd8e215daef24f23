/// What a backend is, as traces name it: the database system and, where one is meaningful, the database's name.
///
/// A ``PersistenceService`` puts these on every span it starts for an operation that reaches the store, as
/// OpenTelemetry's `db.system.name` and `db.namespace`. They describe the kind of store, never where it is:
/// a namespace is a name, never a path or a URL.
public struct BackendDescription: Sendable, Hashable {
    /// The database system, as OpenTelemetry's `db.system.name`: `sqlite`, `postgresql`, or a value of the
    /// backend's own (`storekitlite.memory` for `InMemoryBackend`).
    public let system: String
    /// The database within the system, as OpenTelemetry's `db.namespace` (PostgreSQL: `database|schema`; SQLite:
    /// the file name without its folder); `nil` when there is none worth naming.
    public let namespace: String?
    /// What a commit has survived when it returns, as commit spans' `storekitlite.durability` (SQLite: `full`, fsync'd
    /// before it returns, or `normal`, which may lose the last commits on power loss); `nil` when the backend does not
    /// decide it (PostgreSQL's server does, with `synchronous_commit`).
    public let durability: String?

    /// Describes a backend.
    ///
    /// - Parameters:
    ///   - system: a well-known `db.system.name` value, or one prefixed with the backend's own name.
    ///   - namespace: the database's name, never a path; `nil` for none.
    ///   - durability: what a commit has survived when it returns; `nil` when the backend does not decide it.
    public init(system: String, namespace: String? = nil, durability: String? = nil) {
        self.system = system
        self.namespace = namespace
        self.durability = durability
    }

    /// OpenTelemetry's fallback for an SQL database it has no name for: what a backend that does not describe
    /// itself reports.
    public static let otherSQL = BackendDescription(system: "other_sql")
}
