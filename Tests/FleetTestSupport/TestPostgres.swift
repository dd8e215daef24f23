import Foundation

/// The PostgreSQL server the tests may use: `STOREKITLITE_POSTGRES_URL`, which `Scripts/test-all` (or
/// `Scripts/postgres run -- swift test`) provides. Suites that need it are enabled only when it is set.
public enum TestPostgres {
    /// The server's URL, with its password; `nil` without a server.
    public static let url = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Why a suite that needs the server is skipped.
    public static let skipReason =
        "STOREKITLITE_POSTGRES_URL is not set; Scripts/postgres run -- swift test starts a throwaway server"

    /// The server's URL on a fresh schema named `prefix` and a random suffix, so that a test sees only its own tables.
    public static func freshSchema(_ prefix: String) -> (url: String, schema: String)? {
        guard let url else { return nil }
        let schema = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        return (url + (url.contains("?") ? "&" : "?") + "schema=" + schema, schema)
    }
}
