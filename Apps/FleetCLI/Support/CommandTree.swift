import ArgumentParser
import Foundation
import ModelKit

/// fleet's commands, their subcommands and their options, as ArgumentParser describes them
/// (`--experimental-dump-help`): what ``UnknownCommand`` and ``UnknownOption`` check the arguments against.
struct CommandTree {
    /// One command of the tree.
    struct Node {
        let info: JSONValue

        /// The command's name (`list`).
        var name: String? { info["commandName"]?.stringValue }

        /// The command's subcommands; empty for a command that runs.
        var subcommands: [Node] {
            guard case .array(let subcommands)? = info["subcommands"] else { return [] }
            return subcommands.map(Node.init)
        }

        /// The long names of the command's options that take a value, and of its flags.
        var longNames: (options: Set<String>, flags: Set<String>) {
            var options: Set<String> = []
            var flags: Set<String> = []
            guard case .array(let declared)? = info["arguments"] else { return (options, flags) }
            for argument in declared {
                guard case .array(let names)? = argument["names"] else { continue }
                for name in names where name["kind"]?.stringValue == "long" {
                    guard let text = name["name"]?.stringValue else { continue }
                    if argument["kind"]?.stringValue == "option" { options.insert(text) } else { flags.insert(text) }
                }
            }
            return (options, flags)
        }
    }

    /// `fleet` itself.
    let root: Node

    /// The tree of ``FleetCommand``, or `nil` when ArgumentParser does not describe it.
    static func fleet() -> CommandTree? {
        do {
            _ = try FleetCommand.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            let text = FleetCommand.fullMessage(for: error)
            guard let command = (try? JSONValue(parsing: Data(text.utf8)))?["command"] else { return nil }
            return CommandTree(root: Node(info: command))
        }
    }
}
