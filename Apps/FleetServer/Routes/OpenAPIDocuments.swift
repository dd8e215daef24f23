public import Foundation

/// The OpenAPI documents of the fleet API, one per version, as kept in the repository (`Apps/FleetServer/OpenAPI`)
/// and served by the daemon at `/openapi/v1.json` and `/openapi/v2.json`.
public enum OpenAPIDocuments {
    /// The document for API version `version` (1 or 2), or `nil` for another version.
    public static func document(version: Int) -> Data? {
        guard version == 1 || version == 2,
            let url = Bundle.module.url(
                forResource: "fleet-v\(version)",
                withExtension: "json",
                subdirectory: "OpenAPI"
            )
        else { return nil }
        return try? Data(contentsOf: url)
    }
}
