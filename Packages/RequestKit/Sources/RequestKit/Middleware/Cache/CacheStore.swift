public import Foundation

/// Where an ``HTTPCache`` keeps its answers.
///
/// RequestKit ships ``MemoryCacheStore``; a persistent store implements the same protocol. Every call may
/// suspend and may throw: the cache treats a failed read as a miss and a failed write as not stored, and the
/// request goes on either way. A store keeps several variants under one key (answers that differ by the request
/// header fields their `Vary` names), told apart by ``CachedResponse/varyingHeaderValues``.
public protocol CacheStore: Sendable {
    /// The largest body the store takes, in bytes; the cache passes larger answers on without storing them and
    /// stops collecting a body as soon as it grows past this.
    var maximumBodySize: Int { get }

    /// All variants stored under `key`, in any order.
    ///
    /// Every request the cache may answer reads its key here, so the call runs on the caller's executor
    /// (`nonisolated(nonsending)`): a store that answers from memory returns without a hop to another executor. A
    /// store that reads a file or a database awaits that work as usual; a plain `async` method satisfies the
    /// requirement too.
    nonisolated(nonsending) func entries(for key: CacheKey) async throws -> [CachedResponse]

    /// Stores `entry`, replacing the variant under the same key with the same
    /// ``CachedResponse/varyingHeaderValues``.
    func store(_ entry: CachedResponse) async throws

    /// Removes every variant stored under `key`.
    func remove(_ key: CacheKey) async throws

    /// Removes the entries whose ``CachedResponse/expiry`` is at or before `now`.
    func removeExpired(now: Date) async throws

    /// Removes everything.
    func removeAll() async throws
}
