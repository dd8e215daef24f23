import Foundation
import Synchronization

/// A bounded cache of request URLs by relative path, shared by the copies of one ``ServiceEnvironment``.
///
/// It never makes a request wait: when another request holds the lock, the URL is simply parsed again.
final class ResolvedURLs: Sendable {
    /// Paths kept at most; past it the cache starts over, so paths with ever-new IDs cannot grow it without bound.
    static let capacity = 256

    private let entries = Mutex<[Substring: URL]>([:])

    func url(for path: Substring) -> URL? {
        entries.withLockIfAvailable { $0[path] } ?? nil
    }

    func store(_ url: URL, for path: Substring) {
        _ = entries.withLockIfAvailable { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            // A copy, so the cache does not keep the caller's whole path string alive.
            entries[Substring(String(path))] = url
        }
    }
}
