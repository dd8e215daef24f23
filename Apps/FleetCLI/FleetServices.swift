import FleetClient
import Foundation
import LocatorKit
import RequestKit
import RequestKitAsyncHTTPClient
import Synchronization

/// The composition root of `fleet`: one locator with the environment service, the transport, the persistent HTTP
/// cache, the request client, the fleet client and the offline copy, each created on first use.
///
/// The request client reads and keeps answers in the cache file (``CacheFile``); opening it is `async`, so the
/// request client, and what is built on it, is resolved with `await`.
///
/// The transport owns an `HTTPClient`, so ``shutdown()`` must run before the process exits; it shuts the
/// transport down only when something created it (`fleet env list` never does).
final class FleetServices: Sendable {
    /// The resolved token, kept apart from the rest so that it never shows in a locator dump.
    struct Credentials: Sendable {
        var token: String?
    }

    let locator: Locator
    let context: CommandContext
    let configuration: FleetConfiguration
    let environment: ServiceEnvironment
    /// Where the token came from (or why there is none), for the message of a `401`.
    let tokenResolution: TokenResolution
    private let transports: TransportHolder

    /// How fleet rides out a daemon that is restarting: a refused connection, a connection closed before the
    /// answer, a `502`/`503`/`504` are tried again, up to 7 attempts in all, waiting 100 ms, 200 ms, 400 ms, then
    /// 800 ms: 3.1 seconds of waiting. No jitter: one command against one daemon has no herd to spread out, and a
    /// restart then gets the same window every time. Reads, replacements and deletions are retried, and so is
    /// anything refused before it was sent; a create that may have reached the daemon is not. The policy has no
    /// deadline of its own, so an answer that is merely slow is never cut short.
    static let retryPolicy = RetryPolicy(
        maximumAttempts: 7,
        initialBackoff: .milliseconds(100),
        maximumBackoff: .milliseconds(800),
        jitter: .none
    )

    /// Builds the services for one command run.
    ///
    /// - Throws: ``CommandFailure`` when `--env` names no environment or the configuration cannot be read.
    init(options: GlobalOptions, context: CommandContext) throws(CommandFailure) {
        let configuration = try ConfigurationStore(environment: context.environment).load()
        let name = options.environmentName ?? configuration.current
        guard let chosen = configuration.environment(named: name) else {
            throw CommandFailure(
                "no environment is named \"\(name)\"; 'fleet env list' shows them, 'fleet env add' adds one",
                exitCode: FleetExitCode.notFound
            )
        }
        let environment: ServiceEnvironment
        do {
            environment = try ServiceEnvironment(name: chosen.name, baseURL: chosen.url)
        } catch {
            throw CommandFailure(
                "the environment \"\(name)\" has an unusable URL: \(error)",
                exitCode: FleetExitCode.usage
            )
        }
        let resolution = TokenResolution.resolve(
            option: options.token,
            environment: chosen,
            url: environment.baseURL,
            context: context
        )
        let credentials = Credentials(token: resolution.token)
        // A daemon on loopback answers a connect at once or not at all: there a refused connection is final (no
        // retries until the connect timeout), so "is it running?" comes at once.
        let transports = TransportHolder(
            connectTimeout: context.connectTimeout,
            retries: !FleetPaths.isLoopback(environment.baseURL)
        )
        let locator = Locator(name: "fleet")
        do {
            try locator.register(configuration)
            try locator.register(credentials)
            try locator.register(EnvironmentService.self) { _ in
                try EnvironmentService([environment], current: environment.name)
            }
            try locator.register(AsyncHTTPClientTransport.self) { _ in transports.make() }
            let cacheURL = FleetPaths.httpCache(context.environment)
            try locator.register(CacheFile.self) { _ in await CacheFile.open(at: cacheURL, context: context) }
            try locator.register(RequestClient.self) { resolver in
                var settings = RequestClient.Configuration()
                let token = try await resolver.resolve(Credentials.self).token
                // The token is added below the cache: what the cache keeps does not depend on it.
                settings.middleware = [FleetClient.authorizationDecorator(token: token)]
                settings.retryPolicy = FleetServices.retryPolicy
                settings.cache = try await resolver.resolve(CacheFile.self).cache
                return RequestClient(
                    environment: try await resolver.resolve(EnvironmentService.self),
                    transport: try await resolver.resolve(AsyncHTTPClientTransport.self),
                    configuration: settings
                )
            }
            try locator.register(FleetClient.self) { resolver in
                FleetClient(requestClient: try await resolver.resolve(RequestClient.self))
            }
            let copyURL = FleetPaths.offlineCopy(context.environment, name: environment.name)
            try locator.register(OfflineCopy.self) { _ in try await OfflineCopy.open(at: copyURL) }
        } catch {
            throw CommandFailure("cannot set up fleet's services: \(error)")
        }
        self.locator = locator
        self.context = context
        self.configuration = configuration
        self.environment = environment
        self.tokenResolution = resolution
        self.transports = transports
    }

    /// The fleet client for the chosen environment.
    func fleetClient() async throws(CommandFailure) -> FleetClient {
        try await resolve(FleetClient.self)
    }

    /// A fleet client whose reads answer from the HTTP cache alone and never reach the daemon (`--offline`), or
    /// `nil` when the cache file cannot be used.
    func cachedReads() async throws(CommandFailure) -> FleetClient? {
        guard try await cache() != nil else { return nil }
        return FleetClient(requestClient: try await requestClient(), readPolicy: .onlyIfCached)
    }

    /// The request client for the chosen environment (with the token and the HTTP cache).
    func requestClient() async throws(CommandFailure) -> RequestClient {
        try await resolve(RequestClient.self)
    }

    /// The persistent HTTP cache, or `nil` when its file cannot be used.
    func cache() async throws(CommandFailure) -> HTTPCache? {
        try await resolve(CacheFile.self).cache
    }

    /// A request client for another host (an absolute URL given to `fleet request` or `fleet download`): the
    /// transport and the HTTP cache, but never the token.
    func otherHostClient(_ environment: ServiceEnvironment) async throws(CommandFailure) -> RequestClient {
        var settings = RequestClient.Configuration()
        settings.cache = try await cache()
        return RequestClient(
            environment: environment,
            transport: try await resolve(AsyncHTTPClientTransport.self),
            configuration: settings
        )
    }

    /// The offline copy of the chosen environment.
    func offlineCopy() async throws -> OfflineCopy {
        do {
            return try await locator.resolve(OfflineCopy.self)
        } catch {
            if let underlying = error.underlying as? FleetClientError { throw underlying }
            throw CommandFailure("cannot open the offline copy: \(error)")
        }
    }

    /// `error` with a `401` reworded to name the token that was refused (or why none was sent); others unchanged.
    func explained(_ error: any Error) -> any Error {
        guard let error = error as? FleetClientError, error.status == 401 else { return error }
        return FleetClientError(
            code: error.code,
            message: tokenResolution.unauthorizedMessage(
                environmentName: environment.name,
                url: environment.baseURL.absoluteString
            ),
            status: error.status,
            problem: error.problem,
            url: error.url,
            underlying: error.underlying
        )
    }

    /// Shuts the transport down if it was created.
    func shutdown() async {
        await transports.shutdown()
    }

    private func resolve<Service: Sendable>(_ type: Service.Type) throws(CommandFailure) -> Service {
        do {
            return try locator.resolve(type)
        } catch {
            throw CommandFailure("cannot create \(type): \(error)")
        }
    }

    private func resolve<Service: Sendable>(_ type: Service.Type) async throws(CommandFailure) -> Service {
        do {
            return try await locator.resolve(type)
        } catch {
            throw CommandFailure("cannot create \(type): \(error)")
        }
    }
}

/// Creates the one transport of a run and remembers it, so that it can be shut down.
private final class TransportHolder: Sendable {
    private let transport = Mutex<AsyncHTTPClientTransport?>(nil)
    private let connectTimeout: Duration
    private let retries: Bool

    init(connectTimeout: Duration, retries: Bool) {
        self.connectTimeout = connectTimeout
        self.retries = retries
    }

    func make() -> AsyncHTTPClientTransport {
        transport.withLock { transport in
            if let transport { return transport }
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.connectTimeout = connectTimeout
            configuration.retriesConnectionEstablishment = retries
            let created = AsyncHTTPClientTransport(configuration: configuration)
            transport = created
            return created
        }
    }

    func shutdown() async {
        let created = transport.withLock { $0 }
        try? await created?.shutdown()
    }
}
