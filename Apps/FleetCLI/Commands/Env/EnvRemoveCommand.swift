public import ArgumentParser
import Foundation
import ModelKit

/// `fleet env remove NAME`.
public struct EnvRemoveCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an environment, its stored token and its offline copy.",
        discussion: """
            The built-in environment 'local' and the current environment are not removed (exit code 6): make \
            another one current with 'fleet env use' first. Answers in fleet's HTTP cache are kept (they are kept \
            by URL and age out by themselves).

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The environment's name.")
    public var name: String

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let store = ConfigurationStore(environment: context.environment)
        var configuration = try store.load()
        let environment = try configuration.existingEnvironment(named: name)
        if name == FleetConfiguration.localName {
            throw CommandFailure(
                "\"\(name)\" is built in and cannot be removed",
                exitCode: FleetExitCode.conflict
            )
        }
        if name == configuration.current {
            throw CommandFailure(
                "\"\(name)\" is the current environment; make another one current first: 'fleet env use "
                    + "\(FleetConfiguration.localName)', then 'fleet env remove \(name)'",
                exitCode: FleetExitCode.conflict
            )
        }
        configuration.environments.removeAll { $0.name == name }
        try store.save(configuration)
        let copy = removeOfflineCopy(of: configuration, context)
        if global.json {
            let object: JSONValue = .object([
                "removed": .string(name), "url": .string(environment.url),
                "offlineCopy": copy.map { .string($0.path) } ?? .null,
            ])
            context.output.line(object.formatted(.pretty))
        } else {
            let removedCopy = copy.map { " and its offline copy \($0.path)" } ?? ""
            context.output.line("removed \"\(name)\" (\(environment.url))\(removedCopy)")
        }
    }

    /// Deletes the removed environment's offline copy, unless a remaining environment's copy is the same file;
    /// returns the file when one was deleted. A copy that cannot be deleted is left with a warning: the
    /// environment is gone either way.
    private func removeOfflineCopy(of remaining: FleetConfiguration, _ context: CommandContext) -> URL? {
        let copy = FleetPaths.offlineCopy(context.environment, name: name)
        let shared = remaining.environments.contains {
            FleetPaths.offlineCopy(context.environment, name: $0.name) == copy
        }
        guard !shared, FileManager.default.fileExists(atPath: copy.path) else { return nil }
        do {
            for suffix in ["-wal", "-shm"] {
                let companion = URL(fileURLWithPath: copy.path + suffix)
                if FileManager.default.fileExists(atPath: companion.path) {
                    try FileManager.default.removeItem(at: companion)
                }
            }
            try FileManager.default.removeItem(at: copy)
            return copy
        } catch {
            context.output.line(
                "warning: the offline copy \(copy.path) of \"\(name)\" could not be deleted; delete it by hand",
                to: .standardError
            )
            return nil
        }
    }
}
