/// Told when each request starts and finishes: for logs, metrics and progress displays.
///
/// Observers are called synchronously on the task that runs the request; keep them quick and hand slow work off.
public protocol RequestObserver: Sendable {
    /// A request is about to go through the middleware chain.
    func requestStarted(_ event: RequestStarted)
    /// One attempt of a request finished; told for every attempt when the client has a ``RetryPolicy``. The
    /// default implementation does nothing.
    func requestAttemptFinished(_ event: RequestAttemptFinished)
    /// A request the server did not process went out again on another connection; told whether or not the client
    /// has a ``RetryPolicy``. The default implementation does nothing.
    func requestReplayed(_ event: RequestReplayed)
    /// A request finished, successfully or not.
    func requestFinished(_ event: RequestFinished)
}

extension RequestObserver {
    public func requestAttemptFinished(_ event: RequestAttemptFinished) {}
    public func requestReplayed(_ event: RequestReplayed) {}
}
