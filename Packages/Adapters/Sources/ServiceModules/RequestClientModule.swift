import Foundation
public import LocatorKit
public import Logging
public import RequestKit
public import RequestKitAsyncHTTPClient
public import RequestStoreCache
public import StoreKitLite

/// Registers a RequestKit client for one HTTP service: its environment (a name and a base URL), an
/// AsyncHTTPClient transport (one connection pool), the client's settings (middleware, retry, authentication,
/// timeouts) and its HTTP cache, in memory or kept in a file.
///
/// Resolving ``RequestClientStack`` (or `RequestClient`, under the module's ``name``) makes the transport, opens the
/// cache and makes the client, once. Nothing connects before the first request. With a cache file, opening it is
/// asynchronous: resolve the stack or the client with `await` then (a synchronous resolve fails with
/// `LocatorError`); without one, either way works. The stack's
/// ``RequestClientStack/lifecycle`` shuts the connection pool down on graceful shutdown and is added to the
/// locator's ``ModuleLifecycles``.
public struct RequestClientModule: ValidatedModule {
    /// Where a client keeps the answers it may reuse.
    public struct Cache: Sendable {
        enum Storage: Sendable {
            case none
            case memory(maximumBytes: Int, maximumEntries: Int)
            case file(path: String, limits: StoreKitLiteCacheStore.Limits)
        }

        let storage: Storage

        /// No cache: every request reaches the server.
        public static let none = Cache(storage: .none)

        /// A cache in memory, gone with the process.
        public static func memory(maximumBytes: Int = 32 << 20, maximumEntries: Int = 1_000) -> Cache {
            Cache(storage: .memory(maximumBytes: maximumBytes, maximumEntries: maximumEntries))
        }

        /// A cache in a SQLite file (created when missing), shared by every process that opens it. A file that
        /// cannot be a cache (corrupt, foreign, in a folder that cannot be written) leaves the client uncached:
        /// the cache is an optimisation, never a reason to fail.
        public static func file(
            path: String,
            limits: StoreKitLiteCacheStore.Limits = StoreKitLiteCacheStore.Limits()
        ) -> Cache {
            Cache(storage: .file(path: path, limits: limits))
        }
    }

    /// The registration name (`nil` for the unnamed client).
    public var name: String?
    /// The environment's name, as logs and observers show it; by default the module's ``name``, or `default`.
    public var environmentName: String?
    /// The service's base URL (`https://api.example.com/v2/`).
    public var baseURL: String
    /// The client's settings: middleware, retry, authentication, timeouts. Its `cache` is replaced by ``cache``
    /// unless ``cache`` is `.none`.
    public var configuration: RequestClient.Configuration
    /// The transport's settings: connect and read timeouts, TLS, pins, redirects, connections per host.
    public var transport: AsyncHTTPClientTransport.Configuration
    /// Where answers are kept.
    public var cache: Cache
    /// Told why a cache file cannot be used, before the client goes on without it; by default a warning is logged.
    public var cacheUnavailable: (@Sendable (_ path: String, _ error: StoreError) -> Void)?
    /// Where the transport and the module log, if anywhere.
    public var logger: Logger?
    /// What was missing or mistyped when the settings were read from a configuration reader.
    var settingProblems: [String] = []

    public init(
        name: String? = nil,
        environmentName: String? = nil,
        baseURL: String,
        configuration: RequestClient.Configuration = RequestClient.Configuration(),
        transport: AsyncHTTPClientTransport.Configuration = AsyncHTTPClientTransport.Configuration(),
        cache: Cache = .none,
        cacheUnavailable: (@Sendable (_ path: String, _ error: StoreError) -> Void)? = nil,
        logger: Logger? = nil
    ) {
        self.name = name
        self.environmentName = environmentName
        self.baseURL = baseURL
        self.configuration = configuration
        self.transport = transport
        self.cache = cache
        self.cacheUnavailable = cacheUnavailable
        self.logger = logger
    }

    var label: String { "client" + (name.map { " \"\($0)\"" } ?? "") }
    var resolvedEnvironmentName: String { environmentName ?? name ?? "default" }

    public func problems() -> [String] {
        var problems = settingProblems
        if baseURL.trimmingCharacters(in: .whitespaces).isEmpty {
            // Read from a configuration, a missing base URL is already a problem of its own.
            if settingProblems.isEmpty { problems.append("\(label): the base URL is empty") }
        } else {
            do throws(RequestKitError) {
                _ = try ServiceEnvironment(name: resolvedEnvironmentName, baseURL: baseURL)
            } catch {
                problems.append("\(label): the base URL \(baseURL) is not usable: \(error.reason)")
            }
        }
        if transport.connectTimeout <= .zero { problems.append("\(label): the connect timeout must be positive") }
        if transport.requestTimeout <= .zero { problems.append("\(label): the request timeout must be positive") }
        if let read = transport.readTimeout, read <= .zero {
            problems.append("\(label): the read timeout must be positive (or nil for none)")
        }
        if transport.maximumRedirects < 0 { problems.append("\(label): the most redirects cannot be negative") }
        if transport.maximumConnectionsPerHost < 1 {
            problems.append("\(label): at least one connection per host is needed")
        }
        if configuration.maximumBodySize < 0 { problems.append("\(label): the largest body cannot be negative") }
        switch cache.storage {
        case .none:
            break
        case .memory(let bytes, let entries):
            if bytes <= 0 || entries <= 0 {
                problems.append("\(label): an in-memory cache needs room for at least one byte and one answer")
            }
        case .file(let path, let limits):
            if path.isEmpty, settingProblems.isEmpty { problems.append("\(label): the cache file's path is empty") }
            if limits.maximumBytes <= 0 || limits.maximumEntries <= 0 {
                problems.append("\(label): a cache file needs room for at least one byte and one answer")
            }
        }
        return problems
    }

    public func register(in locator: Locator) throws(LocatorError) {
        try ModuleLifecycles.register(in: locator)
        let module = self
        guard case .file(let path, let limits) = cache.storage else {
            // Nothing to open: the stack is made synchronously, and can be resolved with or without `await`.
            try locator.register(RequestClientStack.self, name: name) { resolver in
                let stack = try RequestClientStack(module, cacheFile: nil)
                try resolver.resolve(ModuleLifecycles.self).append(stack.lifecycle)
                return stack
            }
            try locator.register(RequestClient.self, name: name) { resolver in
                try resolver.resolve(RequestClientStack.self, name: module.name).client
            }
            return
        }
        // Opening the cache file is asynchronous: the stack, and the client, are resolved with `await`.
        try locator.register(RequestClientStack.self, name: name) { resolver in
            try RequestClientStack.checkProblems(of: module)
            let cacheFile = await RequestClientStack.openCache(path: path, limits: limits, module: module)
            let stack = try RequestClientStack(module, cacheFile: cacheFile)
            try await resolver.resolve(ModuleLifecycles.self).append(stack.lifecycle)
            return stack
        }
        try locator.register(RequestClient.self, name: name) { resolver in
            try await resolver.resolve(RequestClientStack.self, name: module.name).client
        }
    }
}

/// What a ``RequestClientModule`` registers: the environment, the transport, the cache, the client on them, and the
/// service that shuts the transport down.
public final class RequestClientStack: Sendable {
    /// The environment requests are resolved against.
    public let environment: ServiceEnvironment
    /// The transport: AsyncHTTPClient's connection pool, shared by every client made on it.
    public let transport: AsyncHTTPClientTransport
    /// The HTTP cache, or `nil` when there is none (or its file could not be used).
    public let cache: HTTPCache?
    /// The client.
    public let client: RequestClient
    /// On graceful shutdown, cancels the client's background work and waits for it, shuts the transport's connection
    /// pool down, then closes the cache file if there is one.
    public let lifecycle: ModuleLifecycleService

    static func checkProblems(of module: RequestClientModule) throws(ModuleConfigurationError) {
        let problems = module.problems()
        guard problems.isEmpty else {
            throw ModuleConfigurationError(.invalidConfiguration, problems: problems)
        }
    }

    /// The stack of `module`, with the cache file already opened (or `nil`: none, or not usable).
    init(_ module: RequestClientModule, cacheFile: StoreKitLiteCacheStore?) throws(ModuleConfigurationError) {
        try Self.checkProblems(of: module)
        do throws(RequestKitError) {
            environment = try ServiceEnvironment(name: module.resolvedEnvironmentName, baseURL: module.baseURL)
        } catch {
            throw ModuleConfigurationError(
                .invalidConfiguration,
                problems: ["\(module.label): the base URL \(module.baseURL) is not usable"],
                underlying: error
            )
        }
        switch module.cache.storage {
        case .none:
            cache = module.configuration.cache
        case .memory(let bytes, let entries):
            cache = HTTPCache(store: MemoryCacheStore(maximumBytes: bytes, maximumEntries: entries))
        case .file:
            cache = cacheFile.map { HTTPCache(store: $0) }
        }
        var configuration = module.configuration
        configuration.cache = cache
        let transport = AsyncHTTPClientTransport(configuration: module.transport, logger: module.logger)
        self.transport = transport
        client = RequestClient(environment: environment, transport: transport, configuration: configuration)
        let client = self.client
        lifecycle = ModuleLifecycleService(label: module.label, logger: module.logger) { [cacheFile] in
            // The client's background work first (a revalidation behind a stale answer), since it sends through the
            // pool; then the pool, so that no request can store an answer in a closed cache file.
            await client.shutdown()
            try await transport.shutdown()
            try await cacheFile?.service.close()
        }
    }

    /// A client for another environment on the same transport and cache, with `configuration` (none of this
    /// stack's middleware or credentials unless it carries them).
    public func client(
        for environment: ServiceEnvironment,
        configuration: RequestClient.Configuration = RequestClient.Configuration()
    ) -> RequestClient {
        var configuration = configuration
        configuration.cache = configuration.cache ?? cache
        return RequestClient(environment: environment, transport: transport, configuration: configuration)
    }

    static func openCache(
        path: String,
        limits: StoreKitLiteCacheStore.Limits,
        module: RequestClientModule
    ) async -> StoreKitLiteCacheStore? {
        do {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw StoreError(.cannotOpen, detail: "the folder \(folder) cannot be created")
                }
            }
            return try await StoreKitLiteCacheStore.open(path: path, limits: limits)
        } catch {
            let error = error as? StoreError ?? StoreError(.cannotOpen, detail: "\(error)")
            if let report = module.cacheUnavailable {
                report(path, error)
            } else {
                module.logger?.warning(
                    "the HTTP cache file cannot be used; going on without a cache",
                    metadata: ["module": "\(module.label)", "path": "\(path)", "error": "\(error)"]
                )
            }
            return nil
        }
    }
}
