import FleetModels
public import Foundation
public import Logging
import ModelKit
import StoreKitLite
import StoreKitLitePostgres

/// The daemon's settings, from flags, environment variables and a JSON file, in that order of precedence.
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

    /// One setting: its flag, environment variable and file key.
    struct Key: Sendable {
        let flag: String
        let environment: String
        let file: String
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
        Key(flag: "database", environment: "FLEETD_DATABASE", file: "database") {
            config,
            value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError("database must not be empty") }
            config.database = value
        },
        Key(flag: "token", environment: "FLEETD_TOKEN", file: "token") { config, value throws(ConfigurationError) in
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
    /// - Parameters:
    ///   - errorIsTerminal: whether standard error is a terminal (`isatty`, unless told): the default log format is
    ///     then `text`, else `json`.
    /// - Throws: ``ConfigurationError`` naming the flag, variable or key that is wrong.
    public static func load(
        arguments: [String],
        environment: [String: String],
        errorIsTerminal: Bool = isatty(STDERR_FILENO) == 1
    ) throws(ConfigurationError) -> Command {
        var flags: [String: String] = [:]
        var configPath: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            guard argument.hasPrefix("--") else {
                throw ConfigurationError("unexpected argument '\(argument)'; see --help")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            // An unknown name is reported as such, whether or not a value follows it.
            guard name == "config" || keys.contains(where: { $0.flag == name }) else {
                let known = ["config", "help"] + keys.map(\.flag)
                let suggestion = NearestName.closest(to: name, among: known).map { "; did you mean --\($0)?" }
                throw ConfigurationError("unknown option --\(name)\(suggestion ?? "; see --help")")
            }
            if value == nil {
                guard index < arguments.count else { throw ConfigurationError("--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if name == "config" {
                configPath = value
            } else {
                flags[name] = value
            }
        }

        var configuration = FleetConfiguration(environment: environment)
        configuration.logFormat = errorIsTerminal ? .text : .json
        // The data directory decides where the default configuration file is, so find it first.
        if let dataDirectory = flags["data-dir"] ?? environment["FLEETD_DATA_DIR"], !dataDirectory.isEmpty {
            configuration.dataDirectory = dataDirectory
        }
        let explicitFile = configPath ?? environment["FLEETD_CONFIG"]
        let filePath = explicitFile ?? (configuration.dataDirectory as NSString).appendingPathComponent("fleetd.json")
        let fileValues = try readFile(filePath, required: explicitFile != nil)

        for key in keys {
            if let value = flags[key.flag] {
                try key.apply(&configuration, value)
            } else if let value = environment[key.environment] {
                do {
                    try key.apply(&configuration, value)
                } catch {
                    throw ConfigurationError("\(key.environment): \(error.message)")
                }
            } else if let value = fileValues[key.file] {
                do {
                    try key.apply(&configuration, value)
                } catch {
                    throw ConfigurationError("\(filePath), \(key.file): \(error.message)")
                }
            }
        }
        if configuration.isPostgres, let url = configuration.database {
            do {
                _ = try PostgresBackend.Configuration(url: url)
            } catch {
                throw ConfigurationError("database: \(error.detail)")
            }
            let cacheKey = keys.first { $0.flag == "read-cache-bytes" }
            let cacheIsSet = cacheKey.map {
                flags[$0.flag] != nil || environment[$0.environment] != nil || fileValues[$0.file] != nil
            }
            if cacheIsSet != true { configuration.readCacheBytes = 0 }
        }
        return .run(configuration)
    }

    private static func readFile(_ path: String, required: Bool) throws(ConfigurationError) -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigurationError("configuration file \(path) does not exist") }
            return [:]
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigurationError("configuration file \(path) is not valid JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw ConfigurationError("configuration file \(path) must hold a JSON object")
        }
        var values: [String: String] = [:]
        for (key, value) in object {
            guard keys.contains(where: { $0.file == key }) else {
                throw ConfigurationError("configuration file \(path): unknown key '\(key)'")
            }
            switch value {
            case .string(let text): values[key] = text
            case .integer(let number): values[key] = String(number)
            case .bool(let flag): values[key] = String(flag)
            default: throw ConfigurationError("configuration file \(path), \(key): expected a string or a number")
            }
        }
        return values
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

        EXIT CODES: 0 clean shutdown, 1 runtime failure (port, data directory or store), 2 bad configuration.
        """
}

/// A setting that is wrong, with the flag, variable or key that holds it.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
