import Foundation
import ModelKit
import RequestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The environments `fleet` knows and the current one, persisted as `config.json` in the configuration folder
/// (`$FLEET_CONFIG_DIR`, else `$XDG_CONFIG_HOME/fleet`, else `~/.config/fleet`).
struct FleetConfiguration: Codable, Sendable, Hashable {
    /// One named daemon.
    struct Environment: Codable, Sendable, Hashable {
        var name: String
        var url: String
        /// A token for this environment; overridden by `--token` and `FLEET_TOKEN`.
        var token: String?
        /// A file holding the token (read at each run), such as a fleetd data folder's `token`; used when
        /// ``token`` is unset.
        var tokenFile: String?
    }

    /// The name of the environment used without `--env`.
    var current: String
    var environments: [Environment]

    /// The name and address of the built-in environment.
    static let localName = "local"
    static let localURL = "http://127.0.0.1:8080/"

    /// What `fleet` uses before anything was configured: `local` only.
    static let initial = FleetConfiguration(
        current: localName,
        environments: [Environment(name: localName, url: localURL, token: nil)]
    )

    func environment(named name: String) -> Environment? {
        environments.first { $0.name == name }
    }

    /// The environment named `name`, or a failure naming the known ones (exit code: not found).
    func existingEnvironment(named name: String) throws(CommandFailure) -> Environment {
        guard let environment = environment(named: name) else {
            let known = environments.map(\.name).joined(separator: ", ")
            throw CommandFailure(
                "no environment is named \"\(name)\" (known: \(known)); 'fleet env add' adds one",
                exitCode: FleetExitCode.notFound
            )
        }
        return environment
    }

    /// Adds an environment, replacing one of the same name.
    mutating func upsert(_ environment: Environment) {
        if let index = environments.firstIndex(where: { $0.name == environment.name }) {
            environments[index] = environment
        } else {
            environments.append(environment)
        }
    }
}

/// Reads and writes the configuration file, with `Codable`: unlike fleetd's settings it is a document `fleet`
/// rewrites (`fleet env add`, `fleet env use`), and its environments are an array of objects, which
/// swift-configuration's JSON provider does not read.
struct ConfigurationStore: Sendable {
    let folder: URL

    var fileURL: URL { folder.appendingPathComponent("config.json") }

    init(folder: URL) {
        self.folder = folder
    }

    init(environment: [String: String]) {
        self.init(folder: FleetPaths.configFolder(environment))
    }

    /// The configuration, or the initial one when the file does not exist yet.
    ///
    /// - Throws: ``CommandFailure`` naming the file, and for JSON that does not parse its line and column, for
    ///   JSON of another shape the path of the member that does not fit.
    func load() throws(CommandFailure) -> FleetConfiguration {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return .initial }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw CommandFailure("cannot read the configuration \(fileURL.path): \(FileProblem.reason(error))")
        }
        var configuration: FleetConfiguration
        do {
            configuration = try ModelCoding.decode(FleetConfiguration.self, from: data)
        } catch {
            let remedy = "fix the file, or move it away to start again with only the environment 'local'"
            if let error = error as? ModelDecodingError {
                if let json = error.jsonError {
                    throw CommandFailure(
                        "the configuration \(fileURL.path) is not valid JSON at line \(json.line), column "
                            + "\(json.column): expected \(json.expected), found \(json.found); \(remedy)"
                    )
                }
                throw CommandFailure("the configuration \(fileURL.path) does not fit: \(error); \(remedy)")
            }
            throw CommandFailure("the configuration \(fileURL.path) does not fit: \(error); \(remedy)")
        }
        if configuration.environment(named: FleetConfiguration.localName) == nil {
            configuration.environments.insert(
                FleetConfiguration.Environment(
                    name: FleetConfiguration.localName,
                    url: FleetConfiguration.localURL,
                    token: nil
                ),
                at: 0
            )
        }
        return configuration
    }

    /// Writes the configuration atomically, readable by the owner only (it may hold tokens).
    ///
    /// - Throws: ``CommandFailure`` saying what keeps the folder from being written and what to do.
    func save(_ configuration: FleetConfiguration) throws(CommandFailure) {
        let folder = WritableFolder(url: folder, role: "configuration folder", variable: "FLEET_CONFIG_DIR")
        if let problem = folder.problem() { throw CommandFailure(problem) }
        let temporary = folder.url.appendingPathComponent(".config.json.\(getpid()).tmp")
        do {
            try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(configuration)
            guard
                FileManager.default.createFile(
                    atPath: temporary.path,
                    contents: data,
                    attributes: [.posixPermissions: 0o600]
                )
            else {
                throw CommandFailure(
                    "cannot write the configuration \(fileURL.path): "
                        + (folder.problem() ?? "creating \(temporary.path) failed")
                )
            }
            guard rename(temporary.path, fileURL.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw CommandFailure("cannot replace the configuration \(fileURL.path): \(reason)")
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(
                folder.problem() ?? "cannot write the configuration \(fileURL.path): \(FileProblem.reason(error))"
            )
        }
    }
}

/// Where `fleet` and `fleetd` keep their files.
enum FleetPaths {
    static func home(_ environment: [String: String]) -> URL {
        if let home = environment["HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// `$FLEET_CONFIG_DIR`, else `$XDG_CONFIG_HOME/fleet`, else `~/.config/fleet`.
    static func configFolder(_ environment: [String: String]) -> URL {
        if let folder = environment["FLEET_CONFIG_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("fleet")
        }
        return home(environment).appendingPathComponent(".config/fleet")
    }

    /// `$FLEET_DATA_DIR`, else `$XDG_DATA_HOME/fleet`, else `~/.local/share/fleet`: the offline copies and
    /// the HTTP cache.
    static func dataFolder(_ environment: [String: String]) -> URL {
        if let folder = environment["FLEET_DATA_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        if let base = environment["XDG_DATA_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("fleet")
        }
        return home(environment).appendingPathComponent(".local/share/fleet")
    }

    /// fleetd's data folder: `$FLEETD_DATA_DIR`, else `$XDG_DATA_HOME/fleetd`, else `~/.local/share/fleetd`.
    static func daemonDataFolder(_ environment: [String: String]) -> URL {
        if let folder = environment["FLEETD_DATA_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        if let base = environment["XDG_DATA_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("fleetd")
        }
        return home(environment).appendingPathComponent(".local/share/fleetd")
    }

    /// The offline copy of one environment.
    static func offlineCopy(_ environment: [String: String], name: String) -> URL {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return dataFolder(environment).appendingPathComponent("offline-\(safe).sqlite")
    }

    /// The persistent HTTP cache, shared by every environment (answers are kept by URL).
    static func httpCache(_ environment: [String: String]) -> URL {
        dataFolder(environment).appendingPathComponent("http-cache.sqlite")
    }

    /// Whether a URL's host is the loopback interface.
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
