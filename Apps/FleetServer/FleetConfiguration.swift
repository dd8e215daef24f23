import Configuration
public import Foundation
public import Logging
import StoreKitLite
import StoreKitLitePostgres
import SystemPackage

/// The daemon's settings, from flags, environment variables and a JSON file, in that order of precedence, read with
/// swift-configuration (its command-line arguments, environment variables and JSON file providers).
///
/// | flag | environment | file key | default |
/// |---|---|---|---|
/// | `--host` | `FLEETD_HOST` | `host` | `127.0.0.1` |
/// | `--port` | `FLEETD_PORT` | `port` | `8080` |
/// | `--data-dir` | `FLEETD_DATA_DIR` | `dataDirectory` | `$XDG_DATA_HOME/fleetd`, else `~/.local/share/fleetd` |
/// | `--database` | `FLEETD_DATABASE` | `database` | `<data dir>/fleet.sqlite` (or a `postgres://` URL) |
/// | `--token` | `FLEETD_TOKEN` | `token` | read from, or generated into, `<data dir>/token` |
/// | `--maintenance-interval-months` | `FLEETD_MAINTENANCE_INTERVAL_MONTHS` | `maintenanceIntervalMonths` | `12` |
/// | `--max-body-bytes` | `FLEETD_MAX_BODY_BYTES` | `maxBodyBytes` | `65536` |
/// | `--durability` | `FLEETD_DURABILITY` | `durability` | `full` |
/// | `--store-execution` | `FLEETD_STORE_EXECUTION` | `storeExecution` | `suspending` |
/// | `--read-cache-bytes` | `FLEETD_READ_CACHE_BYTES` | `readCacheBytes` | `16777216` (16 MiB; 0 turns it off); 0 on PostgreSQL |
/// | `--idle-timeout` | `FLEETD_IDLE_TIMEOUT` | `idleTimeout` | `30` (seconds a connection may send nothing whole) |
/// | `--body-timeout` | `FLEETD_BODY_TIMEOUT` | `bodyTimeout` | `30` (seconds from a request's head to its body's end) |
/// | `--max-connections` | `FLEETD_MAX_CONNECTIONS` | `maxConnections` | `512` |
/// | `--log-level` | `FLEETD_LOG_LEVEL` | `logLevel` | `info` |
/// | `--log-format` | `FLEETD_LOG_FORMAT` | `logFormat` | `text` when standard error is a terminal, else `json` |
/// | `--config` | `FLEETD_CONFIG` | | `<data dir>/fleetd.json` when it exists |
///
/// A flag is written `--name value` or `--name=value` (a value beginning with `--` only the second way); given twice,
/// the last one counts. The file holds one JSON object whose values are strings or integers.
public struct FleetConfiguration: Sendable, Hashable {
    /// How logs are written to standard error.
    public enum LogFormat: String, Sendable, Hashable {
        /// One JSON object per line.
        case json
        /// One readable line per entry.
        case text
    }

    /// How hard a commit waits for the disk.
    public enum Durability: String, Sendable, Hashable {
        /// Survives power loss (SQLite `synchronous = FULL`).
        case full
        /// Survives a process crash (`NORMAL`).
        case normal
    }

    /// Where the store runs SQLite (`SQLiteBackend.Execution`).
    public enum StoreExecution: String, Sendable, Hashable {
        /// On GRDB's reader and writer queues, while the request's task suspends.
        case suspending
        /// On the request's own thread when that needs no waiting.
        case callingThread = "calling-thread"
    }

    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory: String
    /// A SQLite file path, or a `postgres://` (`postgresql://`) URL for a store that several daemons share.
    public var database: String?
    public var token: String?
    public var maintenanceIntervalMonths = 12
    public var maximumBodyBytes = 64 * 1024
    public var durability = Durability.full
    /// Where the store runs SQLite: `suspending` (GRDB's queues; request tasks suspend) or `calling-thread`.
    public var storeExecution = StoreExecution.suspending
    /// The byte budget of the ``ReadResponseCache``; 0 reads the store for every request. Loading a configuration
    /// with a PostgreSQL database and no read-cache setting makes it 0: with other daemons writing, the cache is
    /// retired by the change feed, which is prompt but not instant (see `Apps/README.md`).
    public var readCacheBytes = 16 * 1024 * 1024
    /// Seconds a connection may go without completing a request head or body part (idle between requests, or
    /// trickling a head byte by byte) before it is closed.
    public var idleTimeoutSeconds = 30
    /// Seconds from a request's head to the end of its body, however steadily the body trickles in.
    public var bodyTimeoutSeconds = 30
    /// Connections served at once; further ones wait in the listen backlog until one closes.
    public var maximumConnections = 512
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.json

    /// Defaults, with the data directory from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        dataDirectory = Self.defaultDataDirectory(environment: environment)
    }

    /// Whether ``database`` names a PostgreSQL server.
    public var isPostgres: Bool {
        guard let database else { return false }
        return database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// The SQLite file the daemon stores vehicles in (with a PostgreSQL database, the URL).
    public var databasePath: String {
        database ?? (dataDirectory as NSString).appendingPathComponent("fleet.sqlite")
    }

    /// The database as logs and messages name it: the SQLite file, or the PostgreSQL server, database, user and
    /// schema without the password (`postgresql://fleet@db:5432/fleet schema fleet`).
    public var databaseForDisplay: String {
        guard isPostgres, let database else { return databasePath }
        guard let server = try? PostgresBackend.Configuration(url: database) else {
            return "postgresql (a URL that does not parse)"
        }
        let name = server.database.map { "/\($0)" } ?? ""
        return "postgresql://\(server.username)@\(server.host):\(server.port)\(name) schema \(server.schema)"
    }

    /// Where a generated token is kept.
    public var tokenFilePath: String {
        (dataDirectory as NSString).appendingPathComponent("token")
    }

    /// `$FLEETD_DATA_DIR`, else `$XDG_DATA_HOME/fleetd`, else `~/.local/share/fleetd`.
    public static func defaultDataDirectory(environment: [String: String]) -> String {
        if let explicit = environment["FLEETD_DATA_DIR"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return (xdg as NSString).appendingPathComponent("fleetd")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/share/fleetd")
    }

    // MARK: - Loading

    /// What the command line asks for.
    public enum Command: Sendable, Hashable {
        /// Run with this configuration.
        case run(FleetConfiguration)
        /// Print the usage text and exit.
        case help
    }

    /// One setting: its flag, environment variable and file key (the key it is read by).
    struct Key: Sendable {
        let flag: String
        let environment: String
        let file: String
        /// Read as a secret: swift-configuration's access reporters never show it.
        var isSecret = false
        let apply: @Sendable (inout FleetConfiguration, String) throws(ConfigurationError) -> Void
    }

    static let keys: [Key] = [
        Key(flag: "host", environment: "FLEETD_HOST", file: "host") { config, value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError("host must not be empty") }
            config.host = value
        },
        Key(flag: "port", environment: "FLEETD_PORT", file: "port") { config, value throws(ConfigurationError) in
            config.port = try integer(value, "port", in: 0...65535)
        },
        Key(flag: "data-dir", environment: "FLEETD_DATA_DIR", file: "dataDirectory") {
            config,
            value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError("data-dir must not be empty") }
            config.dataDirectory = value
        },
        Key(flag: "database", environment: "FLEETD_DATABASE", file: "database", isSecret: true) {
            config,
            value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError("database must not be empty") }
            if let scheme = value.range(of: "://").map({ value[..<$0.lowerBound].lowercased() }),
                scheme != "postgres", scheme != "postgresql"
            {
                throw ConfigurationError(
                    "database: \(scheme):// is not a database fleetd supports; give a SQLite file path or a "
                        + "postgres:// URL"
                )
            }
            config.database = value
        },
        Key(flag: "token", environment: "FLEETD_TOKEN", file: "token", isSecret: true) {
            config,
            value throws(ConfigurationError) in
            guard value.count >= 8 else { throw ConfigurationError("token must be at least 8 characters") }
            config.token = value
        },
        Key(
            flag: "maintenance-interval-months",
            environment: "FLEETD_MAINTENANCE_INTERVAL_MONTHS",
            file: "maintenanceIntervalMonths"
        ) { config, value throws(ConfigurationError) in
            config.maintenanceIntervalMonths = try integer(value, "maintenance-interval-months", in: 1...600)
        },
        Key(flag: "max-body-bytes", environment: "FLEETD_MAX_BODY_BYTES", file: "maxBodyBytes") {
            config,
            value throws(ConfigurationError) in
            config.maximumBodyBytes = try integer(value, "max-body-bytes", in: 256...(64 * 1024 * 1024))
        },
        Key(flag: "durability", environment: "FLEETD_DURABILITY", file: "durability") {
            config,
            value throws(ConfigurationError) in
            guard let durability = Durability(rawValue: value) else {
                throw ConfigurationError("durability must be full or normal, not '\(value)'")
            }
            config.durability = durability
        },
        Key(flag: "store-execution", environment: "FLEETD_STORE_EXECUTION", file: "storeExecution") {
            config,
            value throws(ConfigurationError) in
            guard let execution = StoreExecution(rawValue: value) else {
                throw ConfigurationError("store-execution must be suspending or calling-thread, not '\(value)'")
            }
            config.storeExecution = execution
        },
        Key(flag: "read-cache-bytes", environment: "FLEETD_READ_CACHE_BYTES", file: "readCacheBytes") {
            config,
            value throws(ConfigurationError) in
            config.readCacheBytes = try integer(value, "read-cache-bytes", in: 0...(4 * 1024 * 1024 * 1024))
        },
        Key(flag: "idle-timeout", environment: "FLEETD_IDLE_TIMEOUT", file: "idleTimeout") {
            config,
            value throws(ConfigurationError) in
            config.idleTimeoutSeconds = try integer(value, "idle-timeout", in: 1...86_400)
        },
        Key(flag: "body-timeout", environment: "FLEETD_BODY_TIMEOUT", file: "bodyTimeout") {
            config,
            value throws(ConfigurationError) in
            config.bodyTimeoutSeconds = try integer(value, "body-timeout", in: 1...86_400)
        },
        Key(flag: "max-connections", environment: "FLEETD_MAX_CONNECTIONS", file: "maxConnections") {
            config,
            value throws(ConfigurationError) in
            config.maximumConnections = try integer(value, "max-connections", in: 1...1_000_000)
        },
        Key(flag: "log-level", environment: "FLEETD_LOG_LEVEL", file: "logLevel") {
            config,
            value throws(ConfigurationError) in
            guard let level = Logger.Level(rawValue: value) else {
                throw ConfigurationError(
                    "log-level must be one of trace, debug, info, notice, warning, error, critical"
                )
            }
            config.logLevel = level
        },
        Key(flag: "log-format", environment: "FLEETD_LOG_FORMAT", file: "logFormat") {
            config,
            value throws(ConfigurationError) in
            guard let format = LogFormat(rawValue: value) else {
                throw ConfigurationError("log-format must be json or text, not '\(value)'")
            }
            config.logFormat = format
        },
    ]

    /// The configuration from `arguments` (without the program name), `environment` and the configuration file,
    /// flags first, then the environment, then the file, then defaults.
    ///
    /// swift-configuration reads the values: a `ConfigReader` over its command-line arguments provider, its
    /// environment variables provider and its JSON file provider, in that order, each mapping a setting's key
    /// (its file key) to the setting's flag or variable. What those providers do not check is checked by hand
    /// first (`FleetConfigurationSources.swift`): the option names (`--help`, an unknown option, a missing value),
    /// and the file's keys and kinds of value.
    ///
    /// - Parameters:
    ///   - errorIsTerminal: whether standard error is a terminal (`isatty`, unless told): the default log format is
    ///     then `text`, else `json`.
    /// - Throws: ``ConfigurationError`` naming the flag, variable or key that is wrong.
    public static func load(
        arguments: [String],
        environment: [String: String],
        errorIsTerminal: Bool = isatty(STDERR_FILENO) == 1
    ) async throws(ConfigurationError) -> Command {
        guard case .run(let checkedArguments) = try ArgumentCheck.check(arguments) else { return .help }
        let flags = WholeArgumentValues(
            upstream: CommandLineArgumentsProvider(arguments: ["fleetd"] + checkedArguments)
        )
        .mapKeys { key in AbsoluteConfigKey([names(of: key).flag]) }
        let variables = EnvironmentVariablesProvider(environmentVariables: environment)
            .mapKeys { key in AbsoluteConfigKey([names(of: key).environment]) }

        var configuration = FleetConfiguration(environment: environment)
        configuration.logFormat = errorIsTerminal ? .text : .json
        // The data directory decides where the default configuration file is, so find it first.
        let beforeTheFile = ConfigReader(providers: [flags, variables])
        if let dataDirectory = beforeTheFile.string(forKey: "dataDirectory"), !dataDirectory.isEmpty {
            configuration.dataDirectory = dataDirectory
        }
        let explicitFile = beforeTheFile.string(forKey: "config")
        let filePath = explicitFile ?? (configuration.dataDirectory as NSString).appendingPathComponent("fleetd.json")
        var providers: [any ConfigProvider] = [flags, variables]
        var origins: [SettingValues.Origin] = [.flag, .environment]
        if let file = try await configurationFile(filePath, required: explicitFile != nil) {
            providers.append(file)
            origins.append(.file(filePath))
        }
        let lookups = LastLookup()
        let values = SettingValues(
            reader: ConfigReader(providers: providers, accessReporter: lookups),
            lookups: lookups,
            origins: origins
        )

        var given: Set<String> = []
        for key in keys {
            guard let (value, source) = try values.text(of: key) else { continue }
            given.insert(key.file)
            do {
                try key.apply(&configuration, value)
            } catch {
                throw ConfigurationError(error.message, from: source)
            }
        }
        if configuration.isPostgres, let url = configuration.database {
            do {
                _ = try PostgresBackend.Configuration(url: url)
            } catch {
                throw ConfigurationError("database: \(error.detail)")
            }
            if !given.contains("readCacheBytes") { configuration.readCacheBytes = 0 }
        }
        return .run(configuration)
    }

    /// The flag and variable that hold the setting with `key` (a file key, or `config`).
    static func names(of key: AbsoluteConfigKey) -> (flag: String, environment: String) {
        let name = key.components.joined(separator: ".")
        if name == "config" { return ("config", "FLEETD_CONFIG") }
        guard let setting = keys.first(where: { $0.file == name }) else { return (name, name) }
        return (setting.flag, setting.environment)
    }

    /// The JSON file provider for the configuration file at `path`, after ``FileCheck`` found its keys and values
    /// fleetd's; `nil` when the file does not exist and is not `required`.
    private static func configurationFile(
        _ path: String,
        required: Bool
    ) async throws(ConfigurationError) -> FileProvider<JSONSnapshot>? {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError("configuration file \(path) does not exist") }
            return nil
        }
        try FileCheck.check(path, keys: Set(keys.map(\.file)))
        do {
            return try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw ConfigurationError("configuration file \(path) cannot be read: \(error)")
        }
    }

    private static func integer(
        _ text: String,
        _ name: String,
        in range: ClosedRange<Int>
    ) throws(ConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            )
        }
        return value
    }

    /// The `--help` text.
    public static let usage = """
        USAGE: fleetd [--option value]...

        The fleet API daemon: /v1 and /v2 vehicles, /health, /metrics, /openapi/v1.json, /openapi/v2.json.
        Settings come from flags, then environment variables, then a JSON configuration file, then defaults.

        OPTIONS:
          --host HOST                        address to bind (FLEETD_HOST; default 127.0.0.1)
          --port PORT                        port, 0 for any free one (FLEETD_PORT; default 8080)
          --data-dir DIR                     data directory (FLEETD_DATA_DIR; default $XDG_DATA_HOME/fleetd
                                             or ~/.local/share/fleetd)
          --database PATH|URL                SQLite file, or postgres://user:password@host:port/db?schema=s
                                             for a store several fleetd share (FLEETD_DATABASE; default
                                             <data dir>/fleet.sqlite)
          --token TOKEN                      bearer token for writes (FLEETD_TOKEN; default: read from or
                                             generated into <data dir>/token)
          --maintenance-interval-months N    months between services (FLEETD_MAINTENANCE_INTERVAL_MONTHS; 12)
          --max-body-bytes N                 largest request body (FLEETD_MAX_BODY_BYTES; 65536)
          --durability full|normal           commit durability (FLEETD_DURABILITY; full)
          --store-execution MODE             suspending or calling-thread: where SQLite runs
                                             (FLEETD_STORE_EXECUTION; suspending)
          --read-cache-bytes N               memory for encoded read answers, 0 for none
                                             (FLEETD_READ_CACHE_BYTES; 16777216, 0 on PostgreSQL)
          --idle-timeout SECONDS             close a connection that completes no request part for this
                                             long, a trickled head included (FLEETD_IDLE_TIMEOUT; 30)
          --body-timeout SECONDS             close a connection whose request body has not ended this long
                                             after its head (FLEETD_BODY_TIMEOUT; 30)
          --max-connections N                connections served at once (FLEETD_MAX_CONNECTIONS; 512)
          --log-level LEVEL                  trace ... critical (FLEETD_LOG_LEVEL; info)
          --log-format json|text             log lines on standard error (FLEETD_LOG_FORMAT; text on a
                                             terminal, else json)
          --config FILE                      JSON configuration file (FLEETD_CONFIG; default
                                             <data dir>/fleetd.json when it exists)
          -h, --help                         show this text

        A value may also be joined, --port=8081 (a value beginning with -- must be); an option given
        twice counts once, with its last value.

        EXIT CODES: 0 clean shutdown, 1 runtime failure (port, data directory or store), 2 bad configuration.
        """
}

/// A setting that is wrong, with the flag, variable or key that holds it.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where a wrong value was given.
    public enum Source: Sendable, Hashable {
        /// A flag, such as `--port`.
        case flag(String)
        /// An environment variable, such as `FLEETD_PORT`.
        case environment(String)
        /// A key of the configuration file at `path`, such as `port`.
        case file(path: String, key: String)
    }

    /// What is wrong.
    public let message: String
    /// The flag, variable or file key holding the wrong value, when one value is to blame.
    public let source: Source?

    /// An error.
    public init(_ message: String, source: Source? = nil) {
        self.message = message
        self.source = source
    }

    /// An error about the value at `source`, its message led by the variable (`FLEETD_PORT: …`) or the file and
    /// key (`/etc/fleetd.json, port: …`); a flag's message already names it.
    init(_ message: String, from source: Source) {
        switch source {
        case .flag: self.init(message, source: source)
        case .environment(let name): self.init("\(name): \(message)", source: source)
        case .file(let path, let key): self.init("\(path), \(key): \(message)", source: source)
        }
    }

    public var description: String { message }
}
