import FleetServer
import Foundation
import Logging
import Testing

/// `FleetConfiguration.load(arguments:environment:)`: flags over environment over file over defaults, both flag
/// spellings, and errors that name the flag, variable or file key that is wrong.
@Suite("Configuration")
struct ConfigurationTests {
    /// A temporary data directory, removed when the test ends.
    final class Folder {
        let path: String

        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-config-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes `json` to `name` in the folder and returns its path.
        @discardableResult
        func write(_ name: String, _ json: String) throws -> String {
            let file = (path as NSString).appendingPathComponent(name)
            try Data(json.utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
    }

    static func configuration(
        _ arguments: [String],
        _ environment: [String: String]
    ) async throws -> FleetConfiguration {
        let command = try await FleetConfiguration.load(
            arguments: arguments,
            environment: environment,
            errorIsTerminal: false
        )
        guard case .run(let configuration) = command else {
            Issue.record("expected a configuration to run with, got \(command)")
            throw ConfigurationError(.invalidValue, "not a run command")
        }
        return configuration
    }

    /// The error message `load` throws, or `nil` when it succeeds.
    static func failure(_ arguments: [String], _ environment: [String: String]) async -> String? {
        do {
            _ = try await FleetConfiguration.load(
                arguments: arguments,
                environment: environment,
                errorIsTerminal: false
            )
            return nil
        } catch {
            return error.message
        }
    }

    @Test("defaults when nothing is given")
    func defaults() async throws {
        let folder = try Folder()
        let configuration = try await Self.configuration([], ["FLEETD_DATA_DIR": folder.path])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == folder.path)
        #expect(configuration.database == nil)
        #expect(configuration.databasePath == folder.path + "/fleet.sqlite")
        #expect(configuration.tokenFilePath == folder.path + "/token")
        #expect(configuration.token == nil)
        #expect(configuration.maintenanceIntervalMonths == 12)
        #expect(configuration.maximumBodyBytes == 65536)
        #expect(configuration.durability == .full)
        #expect(configuration.readCacheBytes == 16 * 1024 * 1024)
        #expect(configuration.logLevel == .info)
        #expect(configuration.logFormat == .json)
    }

    @Test("flags beat the environment, which beats the file, which beats the defaults")
    func precedence() async throws {
        let folder = try Folder()
        let file = try folder.write(
            "settings.json",
            #"""
            {"host": "file.example", "port": 1111, "maintenanceIntervalMonths": 3, "maxBodyBytes": 4096,
             "durability": "normal", "logLevel": "debug", "token": "file-token-123"}
            """#
        )
        let environment = [
            "FLEETD_DATA_DIR": folder.path,
            "FLEETD_CONFIG": file,
            "FLEETD_HOST": "env.example",
            "FLEETD_PORT": "2222",
            "FLEETD_MAINTENANCE_INTERVAL_MONTHS": "4",
            "FLEETD_LOG_FORMAT": "text",
        ]
        let configuration = try await Self.configuration(
            ["--port=3333", "--maintenance-interval-months", "5"],
            environment
        )
        #expect(configuration.port == 3333, "flag over environment and file")
        #expect(configuration.maintenanceIntervalMonths == 5, "flag over environment and file")
        #expect(configuration.host == "env.example", "environment over file")
        #expect(configuration.logFormat == .text, "environment over default")
        #expect(configuration.maximumBodyBytes == 4096, "file over default")
        #expect(configuration.durability == .normal, "file over default")
        #expect(configuration.logLevel == .debug, "file over default")
        #expect(configuration.token == "file-token-123", "file over default")
        #expect(configuration.database == nil, "default")

        let fileOnly = try await Self.configuration([], ["FLEETD_DATA_DIR": folder.path, "FLEETD_CONFIG": file])
        #expect(fileOnly.host == "file.example")
        #expect(fileOnly.port == 1111)
        #expect(fileOnly.maintenanceIntervalMonths == 3)
    }

    @Test("--key=value and --key value both work, for every key")
    func flagForms() async throws {
        let folder = try Folder()
        let database = folder.path + "/other.sqlite"
        let separate = try await Self.configuration(
            [
                "--host", "0.0.0.0", "--port", "9000", "--data-dir", folder.path, "--database", database, "--token",
                "secret-token", "--maintenance-interval-months", "7", "--max-body-bytes", "1024", "--durability",
                "normal", "--log-level", "warning", "--log-format", "text", "--read-cache-bytes", "0",
            ],
            [:]
        )
        let joined = try await Self.configuration(
            [
                "--host=0.0.0.0", "--port=9000", "--data-dir=\(folder.path)", "--database=\(database)",
                "--token=secret-token", "--maintenance-interval-months=7", "--max-body-bytes=1024",
                "--durability=normal", "--log-level=warning", "--log-format=text", "--read-cache-bytes=0",
            ],
            [:]
        )
        #expect(separate == joined)
        #expect(separate.host == "0.0.0.0")
        #expect(separate.port == 9000)
        #expect(separate.dataDirectory == folder.path)
        #expect(separate.databasePath == database)
        #expect(separate.token == "secret-token")
        #expect(separate.maintenanceIntervalMonths == 7)
        #expect(separate.maximumBodyBytes == 1024)
        #expect(separate.durability == .normal)
        #expect(separate.logLevel == .warning)
        #expect(separate.logFormat == .text)
        #expect(separate.readCacheBytes == 0)
        // A value may itself contain `=`.
        #expect(
            try await Self.configuration(["--token=abc=defgh"], ["FLEETD_DATA_DIR": folder.path]).token == "abc=defgh"
        )
    }

    @Test("logs are text on a terminal and JSON otherwise, unless a flag, variable or the file says")
    func logFormatFollowsTheTerminal() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        func format(
            _ arguments: [String],
            _ extra: [String: String] = [:],
            terminal: Bool
        ) async throws
            -> FleetConfiguration.LogFormat
        {
            let command = try await FleetConfiguration.load(
                arguments: arguments,
                environment: environment.merging(extra) { $1 },
                errorIsTerminal: terminal
            )
            guard case .run(let configuration) = command else {
                throw ConfigurationError(.invalidValue, "not a run command")
            }
            return configuration.logFormat
        }
        #expect(try await format([], terminal: true) == .text)
        #expect(try await format([], terminal: false) == .json)
        #expect(try await format(["--log-format", "json"], terminal: true) == .json)
        #expect(try await format(["--log-format=text"], terminal: false) == .text)
        #expect(try await format([], ["FLEETD_LOG_FORMAT": "json"], terminal: true) == .json)
        try folder.write("fleetd.json", #"{"logFormat": "json"}"#)
        #expect(try await format([], terminal: true) == .json)
        #expect(FleetConfiguration.usage.contains("default text when standard error is a terminal"))
    }

    @Test("the README's table of settings is the one the code holds, and the usage text names every setting")
    func oneTableOfSettings() throws {
        let readme = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Apps/README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- settings: made from FleetConfiguration.keys"))
        let lines = text[marker.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        let table = lines.prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(
            table == FleetConfiguration.settingsTable,
            "Apps/README.md should hold:\n\(FleetConfiguration.settingsTable)"
        )
        let usage = FleetConfiguration.usage
        for line in FleetConfiguration.settingsTable.split(separator: "\n").dropFirst(2) {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let flag = cells[0].replacingOccurrences(of: "`", with: "")
            let variable = cells[1].replacingOccurrences(of: "`", with: "")
            #expect(usage.contains("  \(flag) "), "\(flag)")
            #expect(usage.contains("(\(variable);"), "\(variable)")
        }
    }

    @Test("--help and -h ask for the usage text")
    func help() async throws {
        #expect(try await FleetConfiguration.load(arguments: ["--help"], environment: [:]) == .help)
        #expect(try await FleetConfiguration.load(arguments: ["-h"], environment: [:]) == .help)
        #expect(try await FleetConfiguration.load(arguments: ["--port", "1", "--help"], environment: [:]) == .help)
        #expect(FleetConfiguration.usage.contains("--max-body-bytes"))
        #expect(FleetConfiguration.usage.contains("FLEETD_DATA_DIR"))
    }

    @Test("unknown flags, stray arguments and missing values are refused by name")
    func badArguments() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        let unknown = try #require(await Self.failure(["--colour", "red"], environment))
        #expect(unknown == "unknown option --colour; see --help")
        let unknownJoined = try #require(await Self.failure(["--colour=red"], environment))
        #expect(unknownJoined == "unknown option --colour; see --help")
        // Unknown even without a value after it (not "needs a value").
        #expect(await Self.failure(["--colour"], environment) == "unknown option --colour; see --help")
        let stray = try #require(await Self.failure(["serve"], environment))
        #expect(stray.contains("'serve'"))
        let missing = try #require(await Self.failure(["--port"], environment))
        #expect(missing.contains("--port needs a value"))
        let missingLast = try #require(await Self.failure(["--host", "localhost", "--log-level"], environment))
        #expect(missingLast.contains("--log-level needs a value"))
    }

    @Test("a flag's value is taken whole, commas and all; a flag given twice keeps its last value")
    func flagValuesAreWhole() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        let commas = try await Self.configuration(
            ["--token=abc,defgh", "--database", folder.path + "/a,b.sqlite", "--host", "::1"],
            environment
        )
        #expect(commas.token == "abc,defgh")
        #expect(commas.database == folder.path + "/a,b.sqlite")
        #expect(commas.host == "::1")
        let twice = try await Self.configuration(["--port", "1111", "--log-level=debug", "--port=2222"], environment)
        #expect(twice.port == 2222)
        #expect(twice.logLevel == .debug)
        // A value beginning with "--" is given joined.
        #expect(try await Self.configuration(["--token=--abcdefgh"], environment).token == "--abcdefgh")
        let separate = try #require(await Self.failure(["--token", "--abcdefgh"], environment))
        #expect(separate == "--token needs a value", "\(separate)")
        // A value that is not a number names the whole value.
        let list = try #require(await Self.failure(["--port=80,81"], environment))
        #expect(list == "port must be an integer from 0 to 65535, not '80,81'", "\(list)")
        let stray = try #require(await Self.failure(["--host", "localhost", "extra"], environment))
        #expect(stray == "unexpected argument 'extra'; see --help", "\(stray)")
    }

    @Test("a bad value's error says which flag, variable or file key holds it")
    func errorSources() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        func failing(_ arguments: [String], _ extra: [String: String] = [:]) async -> ConfigurationError? {
            do {
                _ = try await FleetConfiguration.load(
                    arguments: arguments,
                    environment: environment.merging(extra) { $1 },
                    errorIsTerminal: false
                )
                return nil
            } catch {
                return error
            }
        }
        let flag = try #require(await failing(["--durability", "sometimes"]))
        #expect(flag.source == .flag("--durability"))
        #expect(flag.message == "durability must be full or normal, not 'sometimes'")
        let variable = try #require(await failing([], ["FLEETD_DURABILITY": "sometimes"]))
        #expect(variable.source == .environment("FLEETD_DURABILITY"))
        #expect(variable.message == "FLEETD_DURABILITY: durability must be full or normal, not 'sometimes'")
        let file = try folder.write("fleetd.json", #"{"durability": "sometimes", "port": 70000}"#)
        let fromFile = try #require(await failing([]))
        #expect(fromFile.source == .file(path: file, key: "port"))
        #expect(fromFile.message == "\(file), port: port must be an integer from 0 to 65535, not '70000'")
        // A flag over the file's bad values leaves the next one to blame.
        let next = try #require(await failing(["--port", "1"]))
        #expect(next.source == .file(path: file, key: "durability"))
        // Not a value's fault: no source.
        #expect(try #require(await failing(["--colour"])).source == nil)
    }

    @Test("the file's values: strings, integers and integers written as strings; not booleans, fractions or objects")
    func fileValueKinds() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        try folder.write("fleetd.json", #"{"port": "8081", "maxConnections": 64, "host": "::1", "token": 12345678}"#)
        let configuration = try await Self.configuration([], environment)
        #expect(configuration.port == 8081)
        #expect(configuration.maximumConnections == 64)
        #expect(configuration.host == "::1")
        #expect(configuration.token == "12345678")
        for json in [#"{"port": true}"#, #"{"port": 80.5}"#, #"{"port": {"value": 80}}"#, #"{"port": null}"#] {
            let file = try folder.write("fleetd.json", json)
            let message = try #require(await Self.failure([], environment))
            #expect(message == "configuration file \(file), port: expected a string or a number", "\(json)")
        }
    }

    @Test(
        "an unknown flag suggests the nearest real one",
        arguments: [
            (["--prot", "9000"], "unknown option --prot; did you mean --port?"),
            (["--log-formt=text"], "unknown option --log-formt; did you mean --log-format?"),
            (["--data-directory", "/tmp/x"], "unknown option --data-directory; did you mean --data-dir?"),
            (["--max-conections"], "unknown option --max-conections; did you mean --max-connections?"),
            (["--read-cache"], "unknown option --read-cache; did you mean --read-cache-bytes?"),
            (["--verbose"], "unknown option --verbose; see --help"),
        ]
    )
    func unknownFlagSuggestions(arguments: [String], message: String) async throws {
        let folder = try Folder()
        #expect(await Self.failure(arguments, ["FLEETD_DATA_DIR": folder.path]) == message)
    }

    @Test(
        "bad flag values name the flag",
        arguments: [
            (["--port=70000"], "port"),
            (["--port", "eighty"], "port"),
            (["--port=-1"], "port"),
            (["--max-body-bytes=10"], "max-body-bytes"),
            (["--max-body-bytes=999999999999"], "max-body-bytes"),
            (["--maintenance-interval-months=0"], "maintenance-interval-months"),
            (["--log-level=loud"], "log-level"),
            (["--log-format=xml"], "log-format"),
            (["--durability=eventual"], "durability"),
            (["--read-cache-bytes=-1"], "read-cache-bytes"),
            (["--read-cache-bytes", "lots"], "read-cache-bytes"),
            (["--token=short"], "token"),
            (["--host="], "host"),
            (["--database="], "database"),
        ]
    )
    func badFlagValues(arguments: [String], name: String) async throws {
        let folder = try Folder()
        let message = try #require(await Self.failure(arguments, ["FLEETD_DATA_DIR": folder.path]))
        #expect(message.hasPrefix(name), "\(message)")
    }

    @Test(
        "bad environment values name the variable",
        arguments: [
            ("FLEETD_PORT", "abc"),
            ("FLEETD_MAX_BODY_BYTES", "1"),
            ("FLEETD_MAINTENANCE_INTERVAL_MONTHS", "601"),
            ("FLEETD_LOG_LEVEL", "verbose"),
            ("FLEETD_DURABILITY", "off"),
            ("FLEETD_TOKEN", "tiny"),
        ]
    )
    func badEnvironmentValues(variable: String, value: String) async throws {
        let folder = try Folder()
        let message = try #require(await Self.failure([], ["FLEETD_DATA_DIR": folder.path, variable: value]))
        #expect(message.hasPrefix("\(variable): "), "\(message)")
    }

    @Test(
        "bad file values name the file and the key",
        arguments: [
            (#"{"port": 123456}"#, "port"),
            (#"{"port": "http"}"#, "port"),
            (#"{"maxBodyBytes": 100}"#, "maxBodyBytes"),
            (#"{"maintenanceIntervalMonths": -3}"#, "maintenanceIntervalMonths"),
            (#"{"logLevel": "chatty"}"#, "logLevel"),
            (#"{"durability": "sometimes"}"#, "durability"),
            (#"{"port": [8080]}"#, "port"),
        ]
    )
    func badFileValues(json: String, key: String) async throws {
        let folder = try Folder()
        // The default file in the data directory is read when it exists.
        let file = try folder.write("fleetd.json", json)
        let message = try #require(await Self.failure([], ["FLEETD_DATA_DIR": folder.path]))
        #expect(message.contains(file), "\(message)")
        #expect(message.contains(key), "\(message)")
    }

    @Test("a flag or variable overrides a bad file value only when the file is otherwise fine")
    func flagOverridesBadFileValue() async throws {
        let folder = try Folder()
        try folder.write("fleetd.json", #"{"port": "not a port"}"#)
        // The file's port is never applied when a flag gives one.
        let configuration = try await Self.configuration(["--port=1234"], ["FLEETD_DATA_DIR": folder.path])
        #expect(configuration.port == 1234)
    }

    @Test("the configuration file: unknown keys, bad JSON, not an object, missing explicit file")
    func fileErrors() async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]

        let unknown = try folder.write("unknown.json", #"{"port": 1, "colour": "red"}"#)
        let unknownMessage = try #require(await Self.failure(["--config", unknown], environment))
        #expect(unknownMessage.contains("unknown key 'colour'"), "\(unknownMessage)")
        #expect(unknownMessage.contains(unknown))

        let broken = try folder.write("broken.json", #"{"port": "#)
        let brokenMessage = try #require(await Self.failure(["--config=\(broken)"], environment))
        #expect(brokenMessage.contains("not valid JSON"), "\(brokenMessage)")

        let array = try folder.write("array.json", "[1, 2]")
        let arrayMessage = try #require(await Self.failure(["--config", array], environment))
        #expect(arrayMessage.contains("must hold a JSON object"), "\(arrayMessage)")

        let absent = folder.path + "/absent.json"
        let absentFlag = try #require(await Self.failure(["--config", absent], environment))
        #expect(absentFlag.contains(absent) && absentFlag.contains("does not exist"), "\(absentFlag)")
        var withVariable = environment
        withVariable["FLEETD_CONFIG"] = absent
        let absentVariable = try #require(await Self.failure([], withVariable))
        #expect(absentVariable.contains("does not exist"), "\(absentVariable)")

        // Without an explicit file, a missing default file is fine.
        #expect(await Self.failure([], environment) == nil)
    }

    @Test("the default configuration file is looked up in the data directory the flag gives")
    func defaultFileFollowsDataDirectory() async throws {
        let folder = try Folder()
        let other = try Folder()
        try folder.write("fleetd.json", #"{"port": 4444, "logFormat": "text"}"#)
        let configuration = try await Self.configuration(["--data-dir", folder.path], ["FLEETD_DATA_DIR": other.path])
        #expect(configuration.dataDirectory == folder.path)
        #expect(configuration.port == 4444)
        #expect(configuration.logFormat == .text)
        #expect(try await Self.configuration([], ["FLEETD_DATA_DIR": other.path]).port == 8080)
    }

    @Test(
        "a PostgreSQL database is taken from any source, with the read cache off unless it is set",
        arguments: ["postgres://fleet@localhost/fleet", "postgresql://localhost:5432/fleet?schema=east"]
    )
    func postgresDatabase(url: String) async throws {
        let folder = try Folder()
        let environment = ["FLEETD_DATA_DIR": folder.path]
        for (arguments, extra) in [(["--database", url], [:]), ([], ["FLEETD_DATABASE": url])] {
            let configuration = try await Self.configuration(arguments, environment.merging(extra) { $1 })
            #expect(configuration.isPostgres)
            #expect(configuration.database == url)
            #expect(configuration.readCacheBytes == 0)
        }
        let cached = try await Self.configuration(["--database", url, "--read-cache-bytes", "65536"], environment)
        #expect(cached.readCacheBytes == 65536)
        try folder.write("fleetd.json", #"{"database": "\#(url)", "readCacheBytes": 131072}"#)
        let fromFile = try await Self.configuration([], environment)
        #expect(fromFile.isPostgres)
        #expect(fromFile.readCacheBytes == 131072)
        // SQLite keeps its cache.
        #expect(
            try await Self.configuration(["--database", folder.path + "/x.sqlite"], environment).readCacheBytes > 0
        )
    }

    @Test("a PostgreSQL URL without a host is refused, without repeating its password")
    func postgresURLWithoutHost() async throws {
        let folder = try Folder()
        let message = try #require(
            await Self.failure(["--database", "postgres://fleet:s3cret@/fleet"], ["FLEETD_DATA_DIR": folder.path])
        )
        #expect(message.contains("database"), "\(message)")
        #expect(!message.contains("s3cret"), "\(message)")
    }

    @Test("the default data directory: FLEETD_DATA_DIR, else XDG_DATA_HOME/fleetd, else HOME/.local/share/fleetd")
    func defaultDataDirectory() async throws {
        let home = try Folder()
        let xdg = try Folder()
        let explicit = try Folder()
        #expect(
            FleetConfiguration.defaultDataDirectory(environment: [
                "FLEETD_DATA_DIR": explicit.path, "XDG_DATA_HOME": xdg.path, "HOME": home.path,
            ]) == explicit.path
        )
        #expect(
            FleetConfiguration.defaultDataDirectory(environment: ["XDG_DATA_HOME": xdg.path, "HOME": home.path])
                == xdg.path + "/fleetd"
        )
        #expect(
            FleetConfiguration.defaultDataDirectory(environment: ["HOME": home.path])
                == home.path + "/.local/share/fleetd"
        )
        // Empty variables count as unset.
        #expect(
            FleetConfiguration.defaultDataDirectory(environment: [
                "FLEETD_DATA_DIR": "", "XDG_DATA_HOME": "", "HOME": home.path,
            ]) == home.path + "/.local/share/fleetd"
        )

        let loaded = try await Self.configuration([], ["XDG_DATA_HOME": xdg.path, "HOME": home.path])
        #expect(loaded.dataDirectory == xdg.path + "/fleetd")
        #expect(loaded.databasePath == xdg.path + "/fleetd/fleet.sqlite")
        #expect(loaded.tokenFilePath == xdg.path + "/fleetd/token")
        let fromHome = try await Self.configuration([], ["HOME": home.path])
        #expect(fromHome.dataDirectory == home.path + "/.local/share/fleetd")
        #expect(FleetConfiguration(environment: ["HOME": home.path]).dataDirectory == fromHome.dataDirectory)
    }

    @Test("fleetd's entry point exits 2 on a bad configuration and 0 for --help")
    func entryPointExitCodes() async throws {
        let folder = try Folder()
        #expect(await FleetDaemon.main(arguments: ["--port=none"], environment: ["FLEETD_DATA_DIR": folder.path]) == 2)
        #expect(
            await FleetDaemon.main(
                arguments: ["--database", "postgres://"],
                environment: ["FLEETD_DATA_DIR": folder.path]
            ) == 2
        )
        #expect(await FleetDaemon.main(arguments: ["--help"], environment: [:]) == 0)
    }
}
