import Foundation
import NIOCore
import NIOPosix
public import RequestKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches whether the current environment's host is reachable: a network interface must be up (the loopback one
/// for a loopback host) and a TCP connection to the host's port must open.
///
/// Call ``refresh()`` to probe now (for example when the application returns to the foreground), or ``run(every:)``
/// to probe periodically and after every environment switch until the task is cancelled.
public final class HostReachabilityMonitor: ReachabilityMonitor {
    private struct State {
        var status = ReachabilityStatus.unknown
        var subscribers: [Int: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let environment: any EnvironmentProvider
    private let probeTimeout: Duration
    private let state = Mutex(State())

    /// Creates a monitor of `environment`'s current host; a probe gives up after `probeTimeout`.
    public init(environment: any EnvironmentProvider, probeTimeout: Duration = .seconds(2)) {
        self.environment = environment
        self.probeTimeout = probeTimeout
    }

    public var status: ReachabilityStatus { state.withLock { $0.status } }

    public func updates() -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ReachabilityStatus.self,
            bufferingPolicy: .bufferingNewest(8)
        )
        let id = state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            continuation.yield(state.status)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Probes the current environment's host now, publishes the result if it changed, and returns it.
    @discardableResult
    public func refresh() async -> ReachabilityStatus {
        let url = environment.currentEnvironment.baseURL
        let status = await Self.probe(url: url, timeout: probeTimeout)
        let subscribers: [AsyncStream<ReachabilityStatus>.Continuation] = state.withLock { state in
            guard state.status != status else { return [] }
            state.status = status
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(status) }
        return status
    }

    /// Probes every `interval` and after each environment switch until the calling task is cancelled.
    public func run(every interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in self.environment.changes() { await self.refresh() }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.refresh()
                    try? await Task.sleep(for: interval)
                }
            }
            await group.waitForAll()
        }
    }

    static func probe(url: URL, timeout: Duration) async -> ReachabilityStatus {
        guard let host = url.host else { return .unreachable("the environment has no host") }
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard interfaceIsUp(loopback: loopback) else {
            return .unreachable(loopback ? "the loopback interface is down" : "no network interface is up")
        }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            try? await channel.close()
            return .reachable
        } catch {
            return .unreachable("\(host):\(port) does not accept connections")
        }
    }

    /// Whether an interface that can carry traffic to the host is up and running.
    static func interfaceIsUp(loopback: Bool) -> Bool {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return true }  // Unknown: let the probe decide.
        defer { freeifaddrs(list) }
        var current: UnsafeMutablePointer<ifaddrs>? = first
        while let interface = current {
            let flags = Int32(interface.pointee.ifa_flags)
            let family = interface.pointee.ifa_addr?.pointee.sa_family
            let up = flags & Int32(IFF_UP) != 0 && flags & Int32(IFF_RUNNING) != 0
            let isLoopback = flags & Int32(IFF_LOOPBACK) != 0
            if up, isLoopback == loopback, family == sa_family_t(AF_INET) || family == sa_family_t(AF_INET6) {
                return true
            }
            current = interface.pointee.ifa_next
        }
        return false
    }
}
