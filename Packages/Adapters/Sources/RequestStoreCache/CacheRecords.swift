public import Foundation
public import StoreKitLite

/// One stored answer's metadata: what finding, expiring and evicting it needs, without its body.
///
/// The answer itself (status, header fields, URL, times, varying values) is kept as JSON in ``answer``; its body
/// lives in a ``CacheBodyRecord`` with the same UUID, so loading the index of a large cache reads no bodies.
public struct CacheEntryRecord: Record {
    public var id: ID
    /// The `CacheKey` as text (`GET https://host/path`).
    public var key = ""
    /// The varying request header values as canonical text, telling variants under one key apart.
    public var variant = ""
    /// When the answer stops being fresh; expired entries are removed by `removeExpired(now:)`.
    public var expiry = Date(timeIntervalSince1970: 0)
    /// When a client last used the answer (stored or found), for least-recently-used eviction.
    public var lastUsed = Date(timeIntervalSince1970: 0)
    /// The bytes the answer counts against the store's budget.
    public var byteCount = 0
    /// The answer without its body, as JSON.
    public var answer = Data()

    public init(id: ID) {
        self.id = id
    }

    public static let schema = RecordSchema<CacheEntryRecord>(
        "http_cache_entries",
        Column("key", \.key),
        Column("variant", \.variant),
        Column("expiry", \.expiry),
        Column("lastUsed", \.lastUsed),
        Column("byteCount", \.byteCount),
        Column("answer", \.answer)
    )
}

/// The body of a stored answer, under the UUID of its ``CacheEntryRecord``.
public struct CacheBodyRecord: Record {
    public var id: ID
    public var body = Data()

    public init(id: ID) {
        self.id = id
    }

    public static let schema = RecordSchema<CacheBodyRecord>("http_cache_bodies", Column("body", \.body))
}
