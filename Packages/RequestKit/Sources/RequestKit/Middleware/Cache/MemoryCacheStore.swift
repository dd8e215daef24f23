public import Foundation
import Synchronization

/// A ``CacheStore`` in memory, bounded in bytes and in entries, evicting the least recently used keys first.
///
/// ```swift
/// var configuration = RequestClient.Configuration()
/// configuration.cache = HTTPCache(store: MemoryCacheStore(maximumBytes: 16 * 1024 * 1024))
/// ```
///
/// Reads and writes take a lock for a few dictionary operations and never suspend.
public final class MemoryCacheStore: CacheStore {
    /// The most bytes kept, bodies and header fields together (``CachedResponse/byteCount``).
    public let maximumBytes: Int
    /// The most entries kept, variants counted one by one.
    public let maximumEntries: Int
    public let maximumBodySize: Int

    private struct Slot {
        var variants: [CachedResponse]
        var bytes: Int
        /// The neighbours in the recency list: `newer` towards the most recently used key.
        var newer: CacheKey? = nil
        var older: CacheKey? = nil
    }

    private struct State {
        var slots: [CacheKey: Slot] = [:]
        var newest: CacheKey?
        var oldest: CacheKey?
        var bytes = 0
        var entries = 0
    }

    private let state = Mutex(State())

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - maximumBytes: the most bytes kept (32 MiB by default).
    ///   - maximumEntries: the most entries kept (1,000 by default).
    ///   - maximumBodySize: the largest body stored; by default an eighth of `maximumBytes`.
    public init(maximumBytes: Int = 32 * 1024 * 1024, maximumEntries: Int = 1000, maximumBodySize: Int? = nil) {
        self.maximumBytes = max(0, maximumBytes)
        self.maximumEntries = max(0, maximumEntries)
        self.maximumBodySize = min(max(0, maximumBodySize ?? maximumBytes / 8), self.maximumBytes)
    }

    /// The bytes kept now.
    public var byteCount: Int { state.withLock { $0.bytes } }
    /// The entries kept now, variants counted one by one.
    public var entryCount: Int { state.withLock { $0.entries } }

    public func entries(for key: CacheKey) async throws -> [CachedResponse] {
        state.withLock { state in
            guard let slot = state.slots[key] else { return [] }
            Self.touch(key, in: &state)
            return slot.variants
        }
    }

    public func store(_ entry: CachedResponse) async throws {
        let size = entry.byteCount
        guard size <= maximumBytes, maximumEntries > 0 else { return }
        state.withLock { state in
            var variants = state.slots[entry.key]?.variants ?? []
            Self.unlink(entry.key, in: &state)
            variants.removeAll { $0.varyingHeaderValues == entry.varyingHeaderValues }
            variants.append(entry)
            Self.link(entry.key, variants: variants, in: &state)
            while state.bytes > maximumBytes || state.entries > maximumEntries, let oldest = state.oldest {
                Self.unlink(oldest, in: &state)
            }
        }
    }

    public func remove(_ key: CacheKey) async throws {
        state.withLock { Self.unlink(key, in: &$0) }
    }

    public func removeExpired(now: Date) async throws {
        state.withLock { state in
            for (key, slot) in state.slots {
                let kept = slot.variants.filter { $0.expiry > now }
                guard kept.count != slot.variants.count else { continue }
                Self.unlink(key, in: &state)
                // A key that keeps some of its variants counts as recently used.
                if !kept.isEmpty { Self.link(key, variants: kept, in: &state) }
            }
        }
    }

    public func removeAll() async throws {
        state.withLock { $0 = State() }
    }

    // MARK: - The recency list

    /// Adds `key` as the most recently used.
    private static func link(_ key: CacheKey, variants: [CachedResponse], in state: inout State) {
        let bytes = variants.reduce(0) { $0 + $1.byteCount }
        link(key, Slot(variants: variants, bytes: bytes), in: &state)
    }

    private static func link(_ key: CacheKey, _ slot: Slot, in state: inout State) {
        var slot = slot
        slot.newer = nil
        slot.older = state.newest
        state.slots[key] = slot
        if let newest = state.newest { state.slots[newest]?.newer = key }
        state.newest = key
        if state.oldest == nil { state.oldest = key }
        state.bytes += slot.bytes
        state.entries += slot.variants.count
    }

    /// Removes `key` and its variants.
    private static func unlink(_ key: CacheKey, in state: inout State) {
        guard let slot = state.slots.removeValue(forKey: key) else { return }
        if let newer = slot.newer { state.slots[newer]?.older = slot.older } else { state.newest = slot.older }
        if let older = slot.older { state.slots[older]?.newer = slot.newer } else { state.oldest = slot.newer }
        state.bytes -= slot.bytes
        state.entries -= slot.variants.count
    }

    /// Makes `key` the most recently used.
    private static func touch(_ key: CacheKey, in state: inout State) {
        guard state.newest != key, let slot = state.slots[key] else { return }
        unlink(key, in: &state)
        link(key, slot, in: &state)
    }
}
