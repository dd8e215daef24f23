import Foundation
import RequestKit
import StoreKitLite

/// The answers a ``StoreKitLiteCacheStore`` keeps in memory, decoded: for each key, its answers, the IDs of the stored
/// entries they came from and the store version as of which they were all the key's answers. A lookup uses them
/// while the store's version is the same; after a commit, while the key's stored IDs are the same. Bounded in
/// bytes: the keys used least recently go first.
struct RememberedAnswers {
    /// What memory has for a key.
    enum Recall {
        /// Answers to use as they are, and the IDs of their entries.
        case answers([CachedResponse], ids: [UUID])
        /// Answers remembered as of another version: they hold if the key's stored IDs are still `ids`.
        case check(ids: [UUID])
        /// Nothing to use.
        case unknown
    }

    private struct Slot {
        var answers: [CachedResponse]
        /// The IDs of the entries of `answers`, in their order.
        var answerIDs: [UUID]
        /// The IDs of every entry found under the key: those of `answers`, and those that could not be decoded.
        var ids: [UUID]
        /// The version as of which `ids` were all the entries under the key; `nil` until checked.
        var checked: StoreVersion?
        /// Writes of the key by this store that have begun and not ended: until they end, the slot holds the newest
        /// answer and is used without a check.
        var writes = 0
        var bytes: Int
    }

    /// The keys in order of use: making room takes the oldest, with no pass over the others.
    private var slots = RecencyList<CacheKey, Slot>()
    /// The bytes of the remembered answers (``CachedResponse/byteCount``).
    private(set) var bytes = 0

    /// What memory has for `key` at `version` (`nil` when the store's version is unknown).
    mutating func recall(_ key: CacheKey, at version: StoreVersion?) -> Recall {
        guard let slot = slots[key] else { return .unknown }
        if slot.writes > 0 || (version != nil && slot.checked == version) {
            slots.use(key)
            return .answers(slot.answers, ids: slot.ids)
        }
        return version == nil ? .unknown : .check(ids: slot.ids)
    }

    /// Marks the answers of `key` as checked at `version`, the key's stored IDs being `ids`; returns them, or
    /// `nil` when memory holds other IDs for it now.
    mutating func confirm(_ key: CacheKey, ids: [UUID], at version: StoreVersion) -> [CachedResponse]? {
        guard slots[key]?.ids == ids else { return nil }
        return slots.use(key) { slot in
            if slot.writes == 0 { slot.checked = version }
            return slot.answers
        }
    }

    /// Remembers what was read for `key` as of `version`: `answers`, with the IDs of their entries in `answerIDs`,
    /// out of the entries with `ids`. A key being written by this store keeps what it holds.
    mutating func remember(
        _ key: CacheKey,
        answers: [CachedResponse],
        answerIDs: [UUID],
        ids: [UUID],
        at version: StoreVersion,
        bound: Int
    ) {
        if let slot = slots[key] {
            guard slot.writes == 0 else { return }
            bytes -= slot.bytes
        }
        let size = answers.reduce(0) { $0 + $1.byteCount }
        slots.updateValue(
            Slot(answers: answers, answerIDs: answerIDs, ids: ids, checked: version, bytes: size),
            forKey: key
        )
        bytes += size
        keep(within: bound)
    }

    /// Puts `entry`, about to be written under `id`, in place of the variant it replaces; the key is used without a
    /// check until ``endWrite(_:confirmedAt:ids:)``.
    mutating func beginWrite(_ entry: CachedResponse, id: UUID, bound: Int) {
        var slot = slots.removeValue(forKey: entry.key) ?? Slot(answers: [], answerIDs: [], ids: [], bytes: 0)
        bytes -= slot.bytes
        var replaced: Set<UUID> = []
        for position in slot.answers.indices.reversed()
        where slot.answers[position].varyingHeaderValues == entry.varyingHeaderValues {
            replaced.insert(slot.answerIDs[position])
            slot.answers.remove(at: position)
            slot.answerIDs.remove(at: position)
        }
        slot.ids.removeAll { replaced.contains($0) }
        slot.answers.append(entry)
        slot.answerIDs.append(id)
        slot.ids.append(id)
        slot.checked = nil
        slot.writes += 1
        slot.bytes = slot.answers.reduce(0) { $0 + $1.byteCount }
        slots.updateValue(slot, forKey: entry.key)
        bytes += slot.bytes
        keep(within: bound)
    }

    /// Ends a write of `key` begun with ``beginWrite(_:id:bound:)``. When no other write of it is under way, the
    /// answers held are marked as checked at `version` if the key's stored IDs (read after it) are theirs, and
    /// forgotten otherwise (also when the write failed: `version` and `ids` are then `nil`).
    mutating func endWrite(_ key: CacheKey, confirmedAt version: StoreVersion?, ids: [UUID]?) {
        let confirmed = slots.modify(key) { slot -> Bool in
            slot.writes = max(0, slot.writes - 1)
            guard slot.writes == 0 else { return true }
            guard let version, let ids, Set(ids) == Set(slot.ids) else { return false }
            slot.checked = version
            return true
        }
        if confirmed == false { forget(key) }
    }

    mutating func forget(_ key: CacheKey) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        bytes -= slot.bytes
    }

    mutating func forgetAll() {
        slots.removeAll()
        bytes = 0
    }

    /// Forgets the keys used least recently until the rest fit `bound`: each taken from the front of the order of
    /// use, so that making room under the lock lookups take costs the keys forgotten, not the keys kept.
    private mutating func keep(within bound: Int) {
        while bytes > bound, let (_, slot) = slots.removeOldest() {
            bytes -= slot.bytes
        }
    }
}
