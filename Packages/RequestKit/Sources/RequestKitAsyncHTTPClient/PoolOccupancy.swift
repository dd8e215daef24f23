import Foundation
import RequestKit
import Synchronization
import Tracing

/// Counts a transport's traced attempts in flight per origin, and tells an attempt's span when it found every
/// connection of the pool busy.
///
/// AsyncHTTPClient opens at most a set number of HTTP/1.1 connections per origin and queues the requests beyond them;
/// it says nothing when it queues one. An attempt that starts while as many others to its origin are in flight as the
/// pool has connections is queued, and its span gets ``RequestKit/RequestTracing/connectionPoolWaitEvent``. Over
/// `https` the pool may speak HTTP/2, which sends many requests on one connection, so only plain `http` origins are
/// told.
final class PoolOccupancy: Sendable {
    private let limit: Int
    private let inFlight = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts an attempt to `url`'s origin in, recording the wait on its span when the pool is full; returns the
    /// origin to count out with ``leave(_:)``.
    func enter(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let origin = "\(scheme)://\(url.host ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
        let before = inFlight.withLock { counts in
            let before = counts[origin, default: 0]
            counts[origin] = before + 1
            return before
        }
        if scheme == "http", before >= limit {
            RequestTracing.recordAttemptEvent(
                RequestTracing.connectionPoolWaitEvent,
                attributes: [
                    "requestkit.connection_pool.in_flight": .int64(Int64(before)),
                    "requestkit.connection_pool.limit": .int64(Int64(limit)),
                ]
            )
        }
        return origin
    }

    /// Counts an attempt to `origin` out.
    func leave(_ origin: String) {
        inFlight.withLock { counts in
            let left = counts[origin, default: 1] - 1
            counts[origin] = left > 0 ? left : nil
        }
    }
}
