import Foundation
import RequestKit
import StoreKitLite

/// What the store keeps under its one lock: the index, how far reading it has come, and the answers remembered in
/// memory.
extension StoreKitLiteCacheStore {
    /// How far reading the index of what was stored when the store was made has come.
    enum IndexLoad {
        /// Still reading: what is stored, removed and used meanwhile is noted, to be merged with what is read.
        case reading
        case loaded
        /// The index could not be read: writes fail with this error.
        case failed(any Error)
    }

    /// The index of what is stored and the answers remembered in memory, under one lock: a hit takes it once.
    struct State {
        var index = Index()
        var load = IndexLoad.reading
        /// While the index is read: the answers removed from the file, which are not to be taken from what is read.
        var removedWhileReading: Set<UUID> = []
        /// While the index is read: uses of answers it does not know yet, in order.
        var usedWhileReading: [(id: UUID, at: Date)] = []
        var memory = RememberedAnswers()

        /// What memory has for `key` at `version`; answers it gives count as used at `now`.
        mutating func recall(_ key: CacheKey, at version: StoreVersion?, now: Date) -> RememberedAnswers.Recall {
            let recalled = memory.recall(key, at: version)
            if case .answers(_, let ids) = recalled { touch(ids, at: now) }
            return recalled
        }

        /// The answers of `key`, checked at `version`, when memory still holds those of the entries `ids`.
        mutating func confirm(_ key: CacheKey, ids: [UUID], at version: StoreVersion, now: Date) -> [CachedResponse]? {
            guard let answers = memory.confirm(key, ids: ids, at: version) else { return nil }
            touch(ids, at: now)
            return answers
        }

        /// Notes that the answers with `ids` were used at `now`, also those the index does not know while it is read.
        mutating func touch(_ ids: [UUID], at now: Date) {
            index.touch(ids, at: now)
            guard case .reading = load else { return }
            for id in ids where !index.entries.contains(id) { usedWhileReading.append((id, now)) }
        }

        /// Takes the answers with `ids` out of the index: they are removed from the file.
        mutating func removed(_ ids: some Sequence<UUID>) {
            let reading = if case .reading = load { true } else { false }
            for id in ids {
                index.remove(id)
                if reading { removedWhileReading.insert(id) }
            }
        }

        /// Makes `read`, the index of what was stored when the store was made, the index, with what was stored,
        /// removed and used since merged into it; `read` is left with what it replaced, to be released outside the
        /// lock. Returns the answers that do not fit `limits`, taken out of the index.
        mutating func merge(_ read: inout Index, limits: Limits) -> [UUID] {
            guard case .reading = load else { return [] }
            for id in removedWhileReading { read.remove(id) }
            for (id, date) in usedWhileReading { read.touch([id], at: date) }
            // What this store wrote meanwhile is newer than anything read.
            for (id, entry) in index.entries.oldestFirst { read.insert(id, entry) }
            read.touched.formUnion(index.touched)
            swap(&index, &read)
            load = .loaded
            removedWhileReading = []
            usedWhileReading = []
            return takeExcess(over: limits)
        }

        /// Once the index is read: the answers that do not fit `limits`, least recently used first, taken out of the
        /// index and memory (none when the stores made room as they went).
        mutating func takeExcess(over limits: Limits) -> [UUID] {
            guard case .loaded = load else { return [] }
            let excess = index.excess(over: limits)
            for victim in excess {
                if let text = index.entries[victim]?.key, let evicted = StoreKitLiteCacheStore.key(text) {
                    memory.forget(evicted)
                }
                index.remove(victim)
            }
            return excess
        }
    }
}
