import Configuration
import FleetModels
import Foundation
import LocatorKit
import ModelKit
import Synchronization

// How `FleetConfiguration.load` reads its sources with swift-configuration, and the two checks by hand that the
// library's providers cannot make: the command-line provider reads the value of an option it is asked for and
// knows no list of options (no `--help`, no unknown option, no argument that belongs to no option), and a
// lookup-based file provider cannot list the keys a file holds.

// MARK: - The command line

/// The option names in fleetd's arguments, checked before swift-configuration's `CommandLineArgumentsProvider`
/// reads the values: `--help` or `-h`, an unknown option (with the nearest known one), an argument that is no
/// option's value, an option without a value. The provider would skip the first three and read the last as `true`.
enum ArgumentCheck {
    /// What the arguments ask for.
    enum Outcome: Equatable {
        /// Run, with these arguments for the provider: each option once, its last occurrence (the provider would
        /// join the values of an option given twice).
        case run([String])
        /// Print the usage text.
        case help
    }

    /// The options fleetd knows, without their `--` (`--help` aside).
    static let options = FleetConfiguration.settings.map(\.flag)

    /// Checks `arguments` (without the program name) in order and stops at the first problem.
    ///
    /// - Throws: ``ConfigurationError`` naming the unknown option (and the nearest known one), the stray argument,
    ///   or the option that needs a value.
    static func check(_ arguments: [String]) throws(ConfigurationError) -> Outcome {
        var given: [(name: String, arguments: [String])] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            guard argument.hasPrefix("--") else {
                throw ConfigurationError(.invalidArgument, "unexpected argument '\(argument)'; see --help")
            }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            // An unknown name is reported as such, whether or not a value follows it.
            guard options.contains(name) else {
                let suggestion = NearestNames.closest(to: name, among: ["help"] + options).map {
                    "; did you mean --\($0)?"
                }
                throw ConfigurationError(.invalidArgument, "unknown option --\(name)\(suggestion ?? "; see --help")")
            }
            var option = [argument]
            if !argument.contains("=") {
                // The provider takes a word beginning with `--` as the next option: such a value is given
                // joined (`--token=--x`).
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw ConfigurationError(.invalidArgument, "--\(name) needs a value")
                }
                option.append(arguments[index])
                index += 1
            }
            given.removeAll { $0.name == name }
            given.append((name, option))
        }
        return .run(given.flatMap { $0.arguments })
    }
}

/// A command-line arguments provider that answers a string lookup with the whole value: 1.4.0's provider splits
/// every value at its commas (`--token=a,b` holds two values, and so no string), and a token, a path or a
/// PostgreSQL URL may hold one. ``ArgumentCheck`` leaves one value per option, so joining the parts at commas
/// gives it back as it was typed.
struct WholeArgumentValues<Upstream: ConfigProvider>: ConfigProvider {
    let upstream: Upstream

    /// The upstream snapshot, answering string lookups whole.
    struct Snapshot: ConfigSnapshot {
        let upstream: any ConfigSnapshot

        var providerName: String { upstream.providerName }

        func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
            guard type == .string else { return try upstream.value(forKey: key, type: type) }
            let parts = try upstream.value(forKey: key, type: .stringArray)
            guard let value = parts.value, case .stringArray(let strings) = value.content else { return parts }
            return LookupResult(
                encodedKey: parts.encodedKey,
                value: ConfigValue(.string(strings.joined(separator: ",")), isSecret: value.isSecret)
            )
        }
    }

    var providerName: String { upstream.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try snapshot().value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler:
            nonisolated(nonsending) (
                _ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>
            ) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot {
        Snapshot(upstream: upstream.snapshot())
    }

    func watchSnapshot<Return: ~Copyable>(
        updatesHandler:
            nonisolated(nonsending) (
                _ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>
            ) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

// MARK: - The configuration file

/// The configuration file's shape, checked before swift-configuration's JSON file provider reads its values: a JSON
/// object whose keys are all fleetd's, each holding a string or an integer. The provider cannot list its keys, so
/// a misspelt one would be silently unused; it would also read `true` as the integer 1 and flatten a nested object
/// into other keys.
enum FileCheck {
    /// - Throws: ``ConfigurationError`` naming the file and, for a wrong key or value, the key.
    static func check(_ path: String, keys: Set<String>) throws(ConfigurationError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigurationError(.invalidFile, "configuration file \(path) is not valid JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw ConfigurationError(.invalidFile, "configuration file \(path) must hold a JSON object")
        }
        for (key, value) in object {
            guard keys.contains(key) else {
                throw ConfigurationError(.invalidFile, "configuration file \(path): unknown key '\(key)'")
            }
            switch value {
            case .string, .integer: continue
            default:
                throw ConfigurationError(
                    .invalidFile,
                    "configuration file \(path), \(key): expected a string or a number",
                    source: .file(path: path, key: key)
                )
            }
        }
    }
}

// MARK: - Reading

/// The last lookup a `ConfigReader` reported: swift-configuration tells which provider answered a lookup (or
/// failed to convert its value) to an access reporter, and nowhere else.
final class LastLookup: AccessReporter, Sendable {
    private let event = Mutex<AccessEvent?>(nil)

    func report(_ event: AccessEvent) {
        self.event.withLock { $0 = event }
    }

    /// The index, among the reader's providers, of the one that answered the last lookup or failed it; `nil` when
    /// none holds the key.
    var answeringProvider: Int? {
        event.withLock { event in
            guard let event, let last = event.providerResults.last else { return nil }
            switch last.result {
            case .success(let lookup) where lookup.value == nil: return nil
            default: return event.providerResults.count - 1
            }
        }
    }
}

/// The settings' values through one `ConfigReader` (flags, then environment variables, then the file), each with
/// where it came from.
struct SettingValues {
    /// What one of the reader's providers reads.
    enum Origin {
        case flag
        case environment
        /// The configuration file at this path.
        case file(String)
    }

    let reader: ConfigReader
    /// The reader's access reporter.
    let lookups: LastLookup
    /// What each of the reader's providers reads, in the reader's order.
    let origins: [Origin]

    /// The text of `key`'s value from the first provider that holds it, and the flag, variable or file key it came
    /// from; `nil` when none holds it. A file's integer is read as its digits.
    func text(of key: FleetConfiguration.Key) throws(ConfigurationError) -> (String, ConfigurationError.Source)? {
        let configKey = ConfigKey(key.file)
        let text = reader.string(forKey: configKey, isSecret: key.isSecret)
        guard let index = lookups.answeringProvider, origins.indices.contains(index) else { return nil }
        let source: ConfigurationError.Source =
            switch origins[index] {
            case .flag: .flag("--\(key.flag)")
            case .environment: .environment(key.environment)
            case .file(let path): .file(path: path, key: key.file)
            }
        if let text { return (text, source) }
        // Flags and variables are always strings: only a file holds a value that is not, and ``FileCheck`` let
        // through integers alone.
        if let number = reader.int(forKey: configKey, isSecret: key.isSecret) { return (String(number), source) }
        throw ConfigurationError(.invalidValue, "expected a string or a number", from: source)
    }
}
