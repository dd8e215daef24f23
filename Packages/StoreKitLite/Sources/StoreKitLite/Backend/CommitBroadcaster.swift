import Foundation

/// Fans committed batches out to every subscriber: the observation half of a backend.
///
/// A backend keeps one, calls ``publish(_:)`` after each commit, and returns ``subscribe()`` from
/// `committedChanges()`. Subscribers that stop iterating are removed.
public final class CommitBroadcaster: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<ChangeBatch>.Continuation]>([:])

    public init() {}

    /// A new stream of batches committed from now on.
    public func subscribe() -> AsyncStream<ChangeBatch> {
        let (stream, continuation) = AsyncStream<ChangeBatch>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        subscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Delivers a committed batch to every subscriber, once.
    public func publish(_ batch: ChangeBatch) {
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current {
            continuation.yield(batch)
        }
    }

    /// Ends every stream.
    public func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in current {
            continuation.finish()
        }
    }
}
