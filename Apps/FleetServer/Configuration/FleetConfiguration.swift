import Configuration
public import Foundation
public import Logging
import StoreKitLite
import StoreKitLitePostgres
import SystemPackage

/// The daemon's settings, from flags, environment variables and a JSON file, in that order of precedence, read with
/// swift-configuration (its command-line arguments, environment variables and JSON file providers).
///
/// ``keys`` is the one table of settings: each names its flag, variable and file key, its default and what it does,
/// and the usage text (``usage``) and the README's table (``settingsTable``) are made from it.
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

    /// Where the store runs SQLite commits (`SQLiteBackend.Execution`); short reads run on the request's thread
    /// either way.
    public enum StoreExecution: String, Sendable, Hashable {
        /// In group commits on the writer's queue, while the request's task suspends.
        case suspending
        /// A small commit on the request's own thread when the writer is idle.
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
    /// An OTLP/HTTP collector's base URL to send spans to, or `nil` (the default) to trace nothing.
    public var traceEndpoint: String?
    /// The `service.name` of the spans.
    public var traceServiceName = "fleetd"
    /// The share of new traces recorded, from 0 to 1.
    public var traceSamplingRatio = 1.0

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
        /// What the value is, as the usage text names it (`PORT`, `full|normal`).
        let value: String
        /// The default, in Markdown.
        let defaultValue: String
        /// What the setting does, in one or two sentences of Markdown.
        let help: String
        let apply: @Sendable (inout FleetConfiguration, String) throws(ConfigurationError) -> Void
    }

    static let keys: [Key] = [
        Key(
            flag: "host",
            environment: "FLEETD_HOST",
            file: "host",
            value: "HOST",
            defaultValue: "`127.0.0.1`",
            help: "Address to bind."
        ) { config, value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError(.invalidValue, "host must not be empty") }
            config.host = value
        },
        Key(
            flag: "port",
            environment: "FLEETD_PORT",
            file: "port",
            value: "PORT",
            defaultValue: "`8080`",
            help: "Port to listen on; `0` picks a free one."
        ) { config, value throws(ConfigurationError) in
            config.port = try integer(value, "port", in: 0...65535)
        },
        Key(
            flag: "data-dir",
            environment: "FLEETD_DATA_DIR",
            file: "dataDirectory",
            value: "DIR",
            defaultValue: "`$XDG_DATA_HOME/fleetd`, else `~/.local/share/fleetd`",
            help: "Where the SQLite database, the generated token and `fleetd.json` live."
        ) {
            config,
            value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError(.invalidValue, "data-dir must not be empty") }
            config.dataDirectory = value
        },
        Key(
            flag: "database",
            environment: "FLEETD_DATABASE",
            file: "database",
            isSecret: true,
            value: "PATH|URL",
            defaultValue: "`<data dir>/fleet.sqlite`",
            help:
                "A SQLite file, or `postgres://user:password@host:port/db?sslmode=…&schema=…` for a store several fleetd share; give a URL with a password in the variable or the file, since `ps` shows flags."
        ) {
            config,
            value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError(.invalidValue, "database must not be empty") }
            if let scheme = value.range(of: "://").map({ value[..<$0.lowerBound].lowercased() }),
                scheme != "postgres", scheme != "postgresql"
            {
                throw ConfigurationError(
                    .invalidValue,
                    "database: \(scheme):// is not a database fleetd supports; give a SQLite file path or a "
                        + "postgres:// URL"
                )
            }
            config.database = value
        },
        Key(
            flag: "token",
            environment: "FLEETD_TOKEN",
            file: "token",
            isSecret: true,
            value: "TOKEN",
            defaultValue: "read from, or generated into, `<data dir>/token`",
            help: "The bearer token for writes, at least 8 characters."
        ) {
            config,
            value throws(ConfigurationError) in
            guard value.count >= 8 else {
                throw ConfigurationError(.invalidValue, "token must be at least 8 characters")
            }
            config.token = value
        },
        Key(
            flag: "maintenance-interval-months",
            environment: "FLEETD_MAINTENANCE_INTERVAL_MONTHS",
            file: "maintenanceIntervalMonths",
            value: "N",
            defaultValue: "`12`",
            help: "Months after a service when a vehicle is due again."
        ) { config, value throws(ConfigurationError) in
            config.maintenanceIntervalMonths = try integer(value, "maintenance-interval-months", in: 1...600)
        },
        Key(
            flag: "max-body-bytes",
            environment: "FLEETD_MAX_BODY_BYTES",
            file: "maxBodyBytes",
            value: "N",
            defaultValue: "`65536`",
            help: "The largest request body; a larger one is `413`."
        ) {
            config,
            value throws(ConfigurationError) in
            config.maximumBodyBytes = try integer(value, "max-body-bytes", in: 256...(64 * 1024 * 1024))
        },
        Key(
            flag: "durability",
            environment: "FLEETD_DURABILITY",
            file: "durability",
            value: "full|normal",
            defaultValue: "`full`",
            help:
                "Commit durability (SQLite `synchronous`): `full` survives power loss, `normal` a crash of the process."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let durability = Durability(rawValue: value) else {
                throw ConfigurationError(.invalidValue, "durability must be full or normal, not '\(value)'")
            }
            config.durability = durability
        },
        Key(
            flag: "store-execution",
            environment: "FLEETD_STORE_EXECUTION",
            file: "storeExecution",
            value: "MODE",
            defaultValue: "`suspending`",
            help:
                "Where SQLite commits run: `suspending` in group commits on the writer's queue, `calling-thread` a small commit on the request's thread when the writer is idle. Short reads run on the request's thread either way."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let execution = StoreExecution(rawValue: value) else {
                throw ConfigurationError(
                    .invalidValue,
                    "store-execution must be suspending or calling-thread, not '\(value)'"
                )
            }
            config.storeExecution = execution
        },
        Key(
            flag: "read-cache-bytes",
            environment: "FLEETD_READ_CACHE_BYTES",
            file: "readCacheBytes",
            value: "N",
            defaultValue: "`16777216` (16 MiB); `0` on PostgreSQL unless set",
            help: "Memory for encoded read answers; `0` reads the store for every request."
        ) {
            config,
            value throws(ConfigurationError) in
            config.readCacheBytes = try integer(value, "read-cache-bytes", in: 0...(4 * 1024 * 1024 * 1024))
        },
        Key(
            flag: "idle-timeout",
            environment: "FLEETD_IDLE_TIMEOUT",
            file: "idleTimeout",
            value: "SECONDS",
            defaultValue: "`30`",
            help:
                "Seconds without a complete request part (idle between requests, or a head trickled byte by byte) before the connection closes."
        ) {
            config,
            value throws(ConfigurationError) in
            config.idleTimeoutSeconds = try integer(value, "idle-timeout", in: 1...86_400)
        },
        Key(
            flag: "body-timeout",
            environment: "FLEETD_BODY_TIMEOUT",
            file: "bodyTimeout",
            value: "SECONDS",
            defaultValue: "`30`",
            help:
                "Seconds from a request's head to the end of its body, however steadily it trickles; a later body is `408` and nothing is written."
        ) {
            config,
            value throws(ConfigurationError) in
            config.bodyTimeoutSeconds = try integer(value, "body-timeout", in: 1...86_400)
        },
        Key(
            flag: "max-connections",
            environment: "FLEETD_MAX_CONNECTIONS",
            file: "maxConnections",
            value: "N",
            defaultValue: "`512`",
            help: "Connections served at once; more wait in the listen backlog."
        ) {
            config,
            value throws(ConfigurationError) in
            config.maximumConnections = try integer(value, "max-connections", in: 1...1_000_000)
        },
        Key(
            flag: "log-level",
            environment: "FLEETD_LOG_LEVEL",
            file: "logLevel",
            value: "LEVEL",
            defaultValue: "`info`",
            help:
                "`trace`, `debug` (adds the access log: one entry per request), `info`, `notice`, `warning`, `error` or `critical`."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let level = Logger.Level(rawValue: value) else {
                throw ConfigurationError(
                    .invalidValue,
                    "log-level must be one of trace, debug, info, notice, warning, error, critical"
                )
            }
            config.logLevel = level
        },
        Key(
            flag: "log-format",
            environment: "FLEETD_LOG_FORMAT",
            file: "logFormat",
            value: "json|text",
            defaultValue: "`text` when standard error is a terminal, else `json`",
            help: "Log lines on standard error: `json` (one object per line, for log collectors) or `text`."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let format = LogFormat(rawValue: value) else {
                throw ConfigurationError(.invalidValue, "log-format must be json or text, not '\(value)'")
            }
            config.logFormat = format
        },
        Key(
            flag: "trace-endpoint",
            environment: "FLEETD_TRACE_ENDPOINT",
            file: "traceEndpoint",
            value: "URL",
            defaultValue: "none: no tracing",
            help:
                "An OpenTelemetry collector's OTLP/HTTP address, such as `http://127.0.0.1:4318`: each request's span, with the store's spans under it, goes to its `/v1/traces`, and log entries carry `trace_id` and `span_id`."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let url = URL(string: value), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ConfigurationError(
                    .invalidValue,
                    "trace-endpoint must be an http:// or https:// URL, not '\(value)'"
                )
            }
            config.traceEndpoint = value
        },
        Key(
            flag: "trace-service-name",
            environment: "FLEETD_TRACE_SERVICE_NAME",
            file: "traceServiceName",
            value: "NAME",
            defaultValue: "`fleetd`",
            help: "The `service.name` of fleetd's spans."
        ) { config, value throws(ConfigurationError) in
            guard !value.isEmpty else {
                throw ConfigurationError(.invalidValue, "trace-service-name must not be empty")
            }
            config.traceServiceName = value
        },
        Key(
            flag: "trace-sampling-ratio",
            environment: "FLEETD_TRACE_SAMPLING_RATIO",
            file: "traceSamplingRatio",
            value: "RATIO",
            defaultValue: "`1`",
            help:
                "The share of requests without a trace of their own that are traced, from `0` to `1`; a request that brings a `traceparent` follows its caller's choice."
        ) {
            config,
            value throws(ConfigurationError) in
            guard let ratio = Double(value), (0...1).contains(ratio) else {
                throw ConfigurationError(
                    .invalidValue,
                    "trace-sampling-ratio must be a number from 0 to 1, not '\(value)'"
                )
            }
            config.traceSamplingRatio = ratio
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
                throw ConfigurationError(error.code, error.message, from: source)
            }
        }
        if configuration.isPostgres, let url = configuration.database {
            do {
                _ = try PostgresBackend.Configuration(url: url)
            } catch {
                throw ConfigurationError(.invalidValue, "database: \(error.detail)")
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
            if required { throw ConfigurationError(.invalidFile, "configuration file \(path) does not exist") }
            return nil
        }
        try FileCheck.check(path, keys: Set(keys.map(\.file)))
        do {
            return try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw ConfigurationError(.invalidFile, "configuration file \(path) cannot be read: \(error)")
        }
    }

    private static func integer(
        _ text: String,
        _ name: String,
        in range: ClosedRange<Int>
    ) throws(ConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                .invalidValue,
                "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            )
        }
        return value
    }

    /// The `--help` text.
    /// The `--config` setting, which ``load(arguments:environment:errorIsTerminal:)`` reads before the others (it
    /// says where the file with the others is).
    static let configurationFileSetting = Key(
        flag: "config",
        environment: "FLEETD_CONFIG",
        file: "",
        value: "FILE",
        defaultValue: "`<data dir>/fleetd.json` when it exists",
        help: "A JSON file with settings: one object whose values are strings or integers."
    ) { _, _ throws(ConfigurationError) in }

    /// Every setting, in the order the usage text and `Apps/README.md` list them.
    static var settings: [Key] { keys + [configurationFileSetting] }

    /// `fleetd --help`: made from ``settings``, like the README's table (``settingsTable``).
    public static let usage: String = {
        var lines = [
            "USAGE: fleetd [--option value]...",
            "",
            "The fleet API daemon: /v1 and /v2 vehicles, /health, /metrics, /openapi/v1.json, /openapi/v2.json.",
            "Settings come from flags, then environment variables, then a JSON configuration file, then defaults.",
            "",
            "OPTIONS:",
        ]
        let column = 37
        for setting in settings {
            let name = "  --\(setting.flag) \(setting.value)"
            let text = plain("\(setting.help) (\(setting.environment); default \(setting.defaultValue))")
            let wrapped = wrap(text, width: 118 - column)
            let padding = String(repeating: " ", count: max(1, column - name.count))
            lines.append(name + padding + wrapped[0])
            lines += wrapped.dropFirst().map { String(repeating: " ", count: column) + $0 }
        }
        lines += [
            "  -h, --help" + String(repeating: " ", count: column - 12) + "show this text",
            "",
            "A value may also be joined, --port=8081 (a value beginning with -- must be); an option given",
            "twice counts once, with its last value.",
            "",
            "EXIT CODES: 0 clean shutdown, 1 runtime failure (port, data directory, database or another fleetd",
            "on it), 2 bad configuration.",
        ]
        return lines.joined(separator: "\n")
    }()

    /// The settings as the Markdown table `Apps/README.md` shows (a test keeps the two the same).
    public static let settingsTable: String = {
        var lines = ["| flag | environment | file key | default | what it does |", "|---|---|---|---|---|"]
        for setting in settings {
            let file = setting.file.isEmpty ? "" : "`\(setting.file)`"
            lines.append(
                "| `--\(setting.flag)` | `\(setting.environment)` | \(file) | \(setting.defaultValue) | \(setting.help) |"
            )
        }
        return lines.joined(separator: "\n")
    }()

    /// Markdown as plain text: without backticks.
    private static func plain(_ markdown: String) -> String {
        markdown.replacingOccurrences(of: "`", with: "")
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        lines.append(line)
        return lines
    }
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

    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case invalidArgument, invalidValue, invalidFile, unwritableTokenFile
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The command line holds an unknown option, an option without its value, or an unexpected argument.
        public static let invalidArgument = Code(.invalidArgument)
        /// A setting's value is out of range or not one of the values it takes.
        public static let invalidValue = Code(.invalidValue)
        /// The configuration file is missing, unreadable, not a JSON object, or holds an unknown key.
        public static let invalidFile = Code(.invalidFile)
        /// No token was given and the generated one cannot be written to the data directory.
        public static let unwritableTokenFile = Code(.unwritableTokenFile)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`invalidValue`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// What is wrong.
    public let message: String
    /// The flag, variable or file key holding the wrong value, when one value is to blame.
    public let source: Source?

    /// The code's name (`invalidValue`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// An error.
    public init(_ code: Code, _ message: String, source: Source? = nil) {
        self.code = code
        self.message = message
        self.source = source
    }

    /// An error about a value.
    @available(
        *,
        deprecated,
        renamed: "init(_:_:source:)",
        message: "pass the code: ConfigurationError(.invalidValue, message)"
    )
    public init(_ message: String, source: Source? = nil) {
        self.init(.invalidValue, message, source: source)
    }

    /// An error about the value at `source`, its message led by the variable (`FLEETD_PORT: …`) or the file and
    /// key (`/etc/fleetd.json, port: …`); a flag's message already names it.
    init(_ code: Code, _ message: String, from source: Source) {
        switch source {
        case .flag: self.init(code, message, source: source)
        case .environment(let name): self.init(code, "\(name): \(message)", source: source)
        case .file(let path, let key): self.init(code, "\(path), \(key): \(message)", source: source)
        }
    }

    /// The message, cut to 500 characters.
    public var description: String { String(message.prefix(500)) }
}
