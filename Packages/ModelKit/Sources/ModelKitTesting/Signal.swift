/// An event a test can wait for without sleeping: each ``fire()`` wakes one ``wait()``, whether the wait comes
/// before or after it (a fire with nobody waiting is kept, at most one).
public final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    /// A signal not fired yet.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Fires the event.
    public func fire() {
        continuation.yield()
    }

    /// Returns once the event has fired (at once when a fire is kept).
    public func wait() async {
        for await _ in stream { return }
    }
}
