public import Configuration
public import Logging
public import RequestKit
import RequestKitAsyncHTTPClient
import RequestStoreCache

extension RequestClientModule {
    /// A module whose settings are read from `config` under `prefix`; `configuration` carries what settings cannot
    /// (middleware, an authenticator, a retry policy). A missing or mistyped key is not thrown here: it is one of
    /// the module's ``problems()``, so that `installChecked(_:)` reports it with every other problem at once.
    ///
    /// | key | value |
    /// |---|---|
    /// | `<prefix>.baseURL` | required: the service's base URL |
    /// | `<prefix>.connectTimeoutSeconds`, `.requestTimeoutSeconds`, `.readTimeoutSeconds` | numbers of seconds |
    /// | `<prefix>.maximumConnectionsPerHost`, `.maximumRedirects` | integers |
    /// | `<prefix>.cache` | `none` (the default), `memory` or `file` |
    /// | `<prefix>.cachePath` | the cache file, required with `cache` `file` |
    /// | `<prefix>.cacheMaximumBytes`, `.cacheMaximumEntries` | integers: the cache's bounds |
    public init(
        name: String? = nil,
        reading config: ConfigReader,
        prefix: String,
        configuration: RequestClient.Configuration = RequestClient.Configuration(),
        logger: Logger? = nil
    ) {
        self.init(name: name, baseURL: "", configuration: configuration, logger: logger)
        var reader = SettingsReader(config, prefix: prefix, label: label)
        baseURL = reader.requiredString("baseURL")
        if let value = reader.seconds("connectTimeoutSeconds") { transport.connectTimeout = value }
        if let value = reader.seconds("requestTimeoutSeconds") { transport.requestTimeout = value }
        if let value = reader.seconds("readTimeoutSeconds") { transport.readTimeout = value }
        if let value = reader.int("maximumConnectionsPerHost") { transport.maximumConnectionsPerHost = value }
        if let value = reader.int("maximumRedirects") { transport.maximumRedirects = value }
        let bytes = reader.int("cacheMaximumBytes")
        let entries = reader.int("cacheMaximumEntries")
        switch reader.choice("cache", ["none": 0, "memory": 1, "file": 2]) {
        case 1:
            cache = .memory(maximumBytes: bytes ?? 32 << 20, maximumEntries: entries ?? 1_000)
        case 2:
            let defaults = StoreKitLiteCacheStore.Limits()
            let limits = StoreKitLiteCacheStore.Limits(
                maximumBytes: bytes ?? defaults.maximumBytes,
                maximumEntries: entries ?? defaults.maximumEntries
            )
            cache = .file(path: reader.requiredString("cachePath"), limits: limits)
        default:
            cache = .none
        }
        settingProblems = reader.problems
    }
}
