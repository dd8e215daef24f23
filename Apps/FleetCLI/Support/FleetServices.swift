import FleetClient
import Foundation
import LocatorKit
import RequestKit
import RequestKitAsyncHTTPClient
import ServiceModules

/// The composition root of `fleet`: one locator with the request client stack (its
/// transport, the persistent HTTP cache and the client, from ``RequestClientModule``), the fleet client and the
/// offline copy, each created on first use.
///
/// The client stack opens the cache file (``CacheFile``) when it is made; that is `async`, so the request client,
/// and what is built on it, is resolved with `await`.
///
/// The transport owns an `HTTPClient`, so ``shutdown()`` must run before the process exits; it closes only what was
/// created (`fleet env list` creates no transport).
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
    private let lifecycles: ModuleLifecycles

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
        if let problem = DaemonBaseURL.problem(with: chosen.url) {
            throw CommandFailure(
                "the environment \"\(name)\" in \(ConfigurationStore(environment: context.environment).fileURL.path): "
                    + "\(problem) Change it with 'fleet env add \(name) URL'.",
                exitCode: FleetExitCode.usage
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
        var transport = AsyncHTTPClientTransport.Configuration()
        transport.connectTimeout = context.connectTimeout
        transport.retriesConnectionEstablishment = !FleetPaths.isLoopback(environment.baseURL)
        var settings = RequestClient.Configuration()
        // The token is added below the cache: what the cache keeps does not depend on it.
        settings.middleware = [FleetClient.authorizationDecorator(token: credentials.token)]
        settings.retryPolicy = FleetServices.retryPolicy
        let client = RequestClientModule(
            environmentName: environment.name,
            baseURL: chosen.url,
            configuration: settings,
            transport: transport,
            cache: .file(path: FleetPaths.httpCache(context.environment).path, limits: CacheFile.limits),
            cacheUnavailable: { path, error in CacheFile.warn(path: path, error: error, context: context) }
        )
        let locator = Locator(name: "fleet")
        do {
            try locator.register(configuration)
            try locator.register(credentials)
            try locator.installChecked([client])
            try locator.register(FleetClient.self) { resolver in
                FleetClient(requestClient: try await resolver.resolve(RequestClient.self))
            }
            let copyURL = FleetPaths.offlineCopy(context.environment, name: environment.name)
            try locator.register(OfflineCopy.self) { _ in try await OfflineCopy.open(at: copyURL) }
            lifecycles = try locator.resolve(ModuleLifecycles.self)
        } catch {
            throw CommandFailure("cannot set up fleet's services: \(error)")
        }
        self.locator = locator
        self.context = context
        self.configuration = configuration
        self.environment = environment
        self.tokenResolution = resolution
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
        try await resolve(RequestClientStack.self).cache
    }

    /// A request client for another host (an absolute URL given to `fleet request` or `fleet download`): the
    /// transport and the HTTP cache, but never the token.
    func otherHostClient(_ environment: ServiceEnvironment) async throws(CommandFailure) -> RequestClient {
        try await resolve(RequestClientStack.self).client(for: environment)
    }

    /// The offline copy of the chosen environment.
    func offlineCopy() async throws -> OfflineCopy {
        do {
            return try await locator.resolve(OfflineCopy.self)
        } catch {
            // A data folder that is a file or read-only says so and what to do, whatever SQLite made of it.
            if let problem = WritableFolder.data(context.environment).problem() { throw CommandFailure(problem) }
            if let underlying = error.underlying as? FleetClientError { throw underlying }
            throw CommandFailure("cannot open the offline copy: \(error)")
        }
    }

    /// `error` with a `401` reworded to name the token that was refused (or why none was sent); others unchanged.
    func explained(_ error: any Error) -> any Error {
        guard let error = error as? FleetClientError, error.status == 401 else { return error }
        return FleetClientError(
            error.code,
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

    /// Shuts the transport down and closes the cache file, if they were created.
    func shutdown() async {
        try? await lifecycles.shutdown()
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
