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

    /// Describes a backend.
    ///
    /// - Parameters:
    ///   - system: a well-known `db.system.name` value, or one prefixed with the backend's own name.
    ///   - namespace: the database's name, never a path; `nil` for none.
    public init(system: String, namespace: String? = nil) {
        self.system = system
        self.namespace = namespace
    }

    /// OpenTelemetry's fallback for an SQL database it has no name for: what a backend that does not describe
    /// itself reports.
    public static let otherSQL = BackendDescription(system: "other_sql")
}
