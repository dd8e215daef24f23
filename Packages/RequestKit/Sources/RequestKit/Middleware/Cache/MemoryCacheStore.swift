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
        /// When the key was last used, on the store's use counter: a hit writes one number instead of moving the
        /// key in a list, and eviction looks for the smallest.
        var lastUse: UInt64
    }

    private struct State {
        var slots: [CacheKey: Slot] = [:]
        /// Counts the uses of keys, for ``Slot/lastUse``.
        var uses: UInt64 = 0
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

    public nonisolated(nonsending) func entries(for key: CacheKey) async throws -> [CachedResponse] {
        state.withLock { state in
            guard let index = state.slots.index(forKey: key) else { return [] }
            state.uses += 1
            state.slots.values[index].lastUse = state.uses
            return state.slots.values[index].variants
        }
    }

    public func store(_ entry: CachedResponse) async throws {
        let size = entry.byteCount
        guard size <= maximumBytes, maximumEntries > 0 else { return }
        state.withLock { state in
            var variants = Self.unlink(entry.key, in: &state)?.variants ?? []
            variants.removeAll { $0.varyingHeaderValues == entry.varyingHeaderValues }
            variants.append(entry)
            Self.link(entry.key, variants: variants, in: &state)
            evictLeastRecentlyUsed(in: &state)
        }
    }

    public func remove(_ key: CacheKey) async throws {
        state.withLock { _ = Self.unlink(key, in: &$0) }
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

    // MARK: - Recency

    /// Adds `key` as the most recently used.
    private static func link(_ key: CacheKey, variants: [CachedResponse], in state: inout State) {
        let bytes = variants.reduce(0) { $0 + $1.byteCount }
        state.uses += 1
        state.slots[key] = Slot(variants: variants, bytes: bytes, lastUse: state.uses)
        state.bytes += bytes
        state.entries += variants.count
    }

    /// Removes `key` and its variants, returning what was stored.
    @discardableResult
    private static func unlink(_ key: CacheKey, in state: inout State) -> Slot? {
        guard let slot = state.slots.removeValue(forKey: key) else { return nil }
        state.bytes -= slot.bytes
        state.entries -= slot.variants.count
        return slot
    }

    /// Removes the least recently used keys until the store is within its bounds: the oldest found in one pass,
    /// and the keys sorted by use only when more than one must go.
    private func evictLeastRecentlyUsed(in state: inout State) {
        guard isOverBounds(state),
            let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        else { return }
        Self.unlink(oldest, in: &state)
        guard isOverBounds(state) else { return }
        let byUse = state.slots.map { (key: $0.key, lastUse: $0.value.lastUse) }.sorted { $0.lastUse < $1.lastUse }
        for victim in byUse {
            guard isOverBounds(state) else { return }
            Self.unlink(victim.key, in: &state)
        }
    }

    private func isOverBounds(_ state: State) -> Bool {
        state.bytes > maximumBytes || state.entries > maximumEntries
    }
}
