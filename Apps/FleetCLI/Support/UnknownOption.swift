import ArgumentParser
import FleetModels
import Foundation
import ModelKit

/// Finds a long option the command does not know, so that it is reported before anything else ArgumentParser
/// finds wrong: a mistyped `--colour` is the cause, not the `--make` that then seems to be missing.
enum UnknownOption {
    /// The usage error for the first unknown long option in `arguments`, with the nearest known one, or `nil`.
    static func message(in arguments: [String]) -> String? {
        guard let tool = toolInfo() else { return nil }
        // The command the arguments name: follow subcommand names from the root.
        var command = tool
        var path: [String] = []
        for argument in arguments {
            if argument == "--" { break }
            guard !argument.hasPrefix("-"), case .array(let subcommands)? = command["subcommands"] else { continue }
            if let next = subcommands.first(where: { $0["commandName"]?.stringValue == argument }) {
                command = next
                path.append(argument)
            }
        }
        var flags: Set<String> = ["help", "version"]
        var options: Set<String> = []
        if case .array(let declared)? = command["arguments"] {
            for argument in declared {
                guard case .array(let names)? = argument["names"] else { continue }
                for name in names where name["kind"]?.stringValue == "long" {
                    guard let text = name["name"]?.stringValue else { continue }
                    if argument["kind"]?.stringValue == "option" { options.insert(text) } else { flags.insert(text) }
                }
            }
        }
        // ArgumentParser takes a value beginning with "--" only when joined (`--data=--x`), so every other word
        // beginning with "--" is an option name.
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            if options.contains(name) || flags.contains(name) || name == "experimental-dump-help" { continue }
            let known = (options.union(flags)).subtracting(["help", "version"]).sorted()
            let suggestion = NearestName.closest(to: name, among: known).map { " Did you mean '--\($0)'?" } ?? ""
            let commandName = (["fleet"] + path).joined(separator: " ")
            return "Error: Unknown option '--\(name)'.\(suggestion)\n  See '\(commandName) --help' for the options."
        }
        return nil
    }

    /// ArgumentParser's description of the whole tool (`--experimental-dump-help`), as JSON.
    private static func toolInfo() -> JSONValue? {
        do {
            _ = try FleetCommand.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            let text = FleetCommand.fullMessage(for: error)
            return (try? JSONValue(parsing: Data(text.utf8)))?["command"]
        }
    }
}
