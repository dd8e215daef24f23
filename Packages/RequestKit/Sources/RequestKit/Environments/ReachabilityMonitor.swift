/// Reports whether the environment's host is reachable, now and as a stream of changes.
///
/// Give one to ``RequestClient/Configuration/reachability``: while it reports the host unreachable, requests fail
/// at once with ``RequestKitError/Code/offline`` instead of waiting for a connection timeout. `HostReachabilityMonitor`
/// in `RequestKitAsyncHTTPClient` is the Linux implementation (interface state and a TCP probe).
public protocol ReachabilityMonitor: Sendable {
    /// The latest known status.
    var status: ReachabilityStatus { get }
    /// The statuses from now on, starting with the current one; only changes are reported.
    func updates() -> AsyncStream<ReachabilityStatus>
}
