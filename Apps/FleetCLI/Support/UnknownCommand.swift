import LocatorKit

/// Finds a subcommand name that no command group knows (`fleet vehicles delete`), so that it is reported with the
/// nearest real one rather than as "unexpected arguments".
enum UnknownCommand {
    /// Words people reach for from other tools, and the command they mean here (when the group has it).
    static let synonyms: [String: String] = [
        "delete": "remove", "del": "remove", "rm": "remove", "erase": "remove", "destroy": "remove",
        "ls": "list", "show": "get", "describe": "get", "create": "add", "new": "add",
        "edit": "update", "change": "update", "modify": "update", "set": "update",
        "switch": "use", "select": "use",
    ]

    /// The usage error for the first word in `arguments` that should name a subcommand and names none, or `nil`.
    static func problem(in arguments: [String], tree: CommandTree) -> UsageProblem? {
        var command = tree.root
        var path: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                // An option's value is not a command's name (`fleet --env prod vehicles list`), unless joined.
                let name = String(argument.drop { $0 == "-" })
                if argument.hasPrefix("--"), !name.contains("="), command.longNames.options.contains(name) {
                    index += 1
                }
                continue
            }
            let subcommands = command.subcommands
            // A command that runs takes the remaining words as its arguments; `fleet help …` names commands itself.
            if subcommands.isEmpty || (path.isEmpty && argument == "help") { return nil }
            if let next = subcommands.first(where: { $0.name == argument }) {
                command = next
                path.append(argument)
                continue
            }
            let names = subcommands.compactMap(\.name)
            let synonym = synonyms[argument.lowercased()].flatMap { names.contains($0) ? $0 : nil }
            let suggestion = (synonym ?? NearestNames.closest(to: argument, among: names)).map {
                " Did you mean '\($0)'?"
            }
            let commandName = (["fleet"] + path).joined(separator: " ")
            return UsageProblem(
                message: "Unknown command '\(argument)'.\(suggestion ?? "")",
                hint: "See '\(commandName) --help' for the commands."
            )
        }
        return nil
    }
}
