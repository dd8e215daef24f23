import LocatorKit

/// Finds a long option the command does not know, so that it is reported before anything else ArgumentParser
/// finds wrong: a mistyped `--colour` is the cause, not the `--make` that then seems to be missing.
enum UnknownOption {
    /// The usage error for the first unknown long option in `arguments`, with the nearest known one, or `nil`.
    static func problem(in arguments: [String], tree: CommandTree) -> UsageProblem? {
        // The command the arguments name: follow subcommand names from the root.
        var command = tree.root
        var path: [String] = []
        for argument in arguments {
            if argument == "--" { break }
            guard !argument.hasPrefix("-") else { continue }
            if let next = command.subcommands.first(where: { $0.name == argument }) {
                command = next
                path.append(argument)
            }
        }
        let (options, declaredFlags) = command.longNames
        let flags = declaredFlags.union(["help"])
        // ArgumentParser takes a value beginning with "--" only when joined (`--data=--x`), so every other word
        // beginning with "--" is an option name.
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            if options.contains(name) || flags.contains(name) || name == "experimental-dump-help" { continue }
            let known = options.union(flags).subtracting(["help", "version"]).sorted()
            let suggestion = NearestNames.closest(to: name, among: known).map { " Did you mean '--\($0)'?" } ?? ""
            let commandName = (["fleet"] + path).joined(separator: " ")
            return UsageProblem(
                message: "Unknown option '--\(name)'.\(suggestion)",
                hint: "See '\(commandName) --help' for the options."
            )
        }
        return nil
    }
}
