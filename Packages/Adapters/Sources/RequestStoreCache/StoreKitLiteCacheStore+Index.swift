import Foundation

/// The index of what the store holds (each answer's key, variant, size, expiry and last use, never the answer) and
/// the eviction planner over it: which answers go, least recently used first, so that the rest fit the limits.
extension StoreKitLiteCacheStore {
    /// What the store knows of one answer without reading it.
    struct IndexEntry: Sendable {
        var key: String
        var variant: String
        var bytes: Int
        var expiry: Date
        var lastUsed: Date
    }

    /// The IDs of the answers stored under one key: nearly always one, kept without an allocation of its own.
    struct KeyVariants: Sendable {
        var first: UUID
        var others: [UUID] = []

        var all: [UUID] { [first] + others }

        /// Removes `id`; `false` when nothing is left.
        mutating func remove(_ id: UUID) -> Bool {
            if first == id {
                guard let next = others.popLast() else { return false }
                first = next
            } else {
                others.removeAll { $0 == id }
            }
            return true
        }
    }

    struct Index: Sendable {
        /// The answers in order of use, the least recently used first.
        var entries: RecencyList<UUID, IndexEntry>
        /// The answers under each key (its variants).
        var byKey: [String: KeyVariants]
        var bytes = 0
        /// Answers used since their `lastUsed` was last written (with room for the uses between two stores made
        /// once, not at the first hit after each store).
        var touched = Set<UUID>(minimumCapacity: 64)

        init(minimumCapacity: Int = 0) {
            entries = RecencyList(minimumCapacity: minimumCapacity)
            byKey = Dictionary(minimumCapacity: minimumCapacity)
        }

        func ids(for key: String) -> [UUID] {
            byKey[key]?.all ?? []
        }

        /// Adds `entry` as the most recently used answer (in place of an answer with the same ID).
        mutating func insert(_ id: UUID, _ entry: IndexEntry) {
            remove(id)
            entries.updateValue(entry, forKey: id)
            if byKey[entry.key]?.others.append(id) == nil { byKey[entry.key] = KeyVariants(first: id) }
            bytes += entry.bytes
        }

        mutating func remove(_ id: UUID) {
            guard let old = entries.removeValue(forKey: id) else { return }
            bytes -= old.bytes
            touched.remove(id)
            if byKey[old.key]?.remove(id) == false { byKey[old.key] = nil }
        }

        /// Notes that the answers with `ids` were used at `now`: they become the most recently used.
        mutating func touch(_ ids: [UUID], at now: Date) {
            for id in ids where entries.use(id, { $0.lastUsed = now }) != nil {
                touched.insert(id)
            }
        }

        /// What storing an answer of `bytes` under `key` and `variant` takes: the variant it replaces, and the least
        /// recently used answers to remove so that the rest and the new one fit `limits`, oldest first. Reads the
        /// answers from the front of the order of use, as many as go.
        func plan(
            key: String,
            variant: String,
            bytes newBytes: Int,
            limits: Limits
        ) -> (replaced: [UUID], victims: [UUID]) {
            let replaced = ids(for: key).filter { entries[$0]?.variant == variant }
            var excessBytes = bytes + newBytes - limits.maximumBytes
            var excessEntries = entries.count + 1 - limits.maximumEntries
            for id in replaced {
                excessBytes -= entries[id]?.bytes ?? 0
                excessEntries -= 1
            }
            return (replaced, victims(over: (excessBytes, excessEntries), sparing: replaced))
        }

        /// The answers that go, least recently used first, so that the rest fit `limits`.
        func excess(over limits: Limits) -> [UUID] {
            victims(over: (bytes - limits.maximumBytes, entries.count - limits.maximumEntries), sparing: [])
        }

        private func victims(over excess: (bytes: Int, entries: Int), sparing spared: [UUID]) -> [UUID] {
            var (excessBytes, excessEntries) = excess
            var victims: [UUID] = []
            guard excessBytes > 0 || excessEntries > 0 else { return victims }
            for (id, entry) in entries.oldestFirst where !spared.contains(id) {
                victims.append(id)
                excessBytes -= entry.bytes
                excessEntries -= 1
                if excessBytes <= 0 && excessEntries <= 0 { break }
            }
            return victims
        }
    }
}
