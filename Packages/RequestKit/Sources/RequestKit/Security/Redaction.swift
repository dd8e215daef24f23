import Foundation
import HTTPTypes

/// Replaces secrets in header fields and URLs before they reach logs and observers.
enum Redaction {
    static let placeholder = "<redacted>"

    private static let secretFieldNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
    ]
    private static let secretFragments = ["token", "secret", "api-key", "apikey", "password", "session"]

    static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretFieldNames.contains(lowered) || secretFragments.contains { lowered.contains($0) }
    }

    /// The fields with the values of secret ones replaced: the standard credentials, names that look like secrets,
    /// and every field marked sensitive (indexing strategy `.disallow`).
    static func redact(_ fields: HTTPFields) -> HTTPFields {
        var redacted = HTTPFields()
        for field in fields {
            if field.indexingStrategy == .disallow || isSecret(field.name.canonicalName) {
                redacted.append(HTTPField(name: field.name, value: placeholder))
            } else {
                redacted.append(field)
            }
        }
        return redacted
    }

    static func redact(_ url: URL) -> URL {
        // Most URLs carry neither a password nor a query: nothing to parse again.
        if url.query == nil, url.password == nil { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        if components.password != nil { components.password = placeholder }
        if let items = components.queryItems, items.contains(where: { isSecret($0.name) }) {
            components.queryItems = items.map { item in
                isSecret(item.name) ? URLQueryItem(name: item.name, value: placeholder) : item
            }
        }
        return components.url ?? url
    }
}
