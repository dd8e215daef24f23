public import ArgumentParser
import Foundation
import ModelKit

/// `fleet env list`.
public struct EnvListCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the environments; the current one is marked with *.",
        discussion: GlobalOptions.helpPointer
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let configuration = try ConfigurationStore(environment: context.environment).load()
        if global.json {
            let items: [JSONValue] = configuration.environments.map { environment in
                .object([
                    "name": .string(environment.name), "url": .string(environment.url),
                    "current": .bool(environment.name == configuration.current),
                    "hasToken": .bool(environment.token != nil),
                    "tokenFile": environment.tokenFile.map { .string($0) } ?? .null,
                ])
            }
            context.output.line(JSONValue.array(items).formatted(.pretty))
            return
        }
        let width = configuration.environments.map(\.name.count).max() ?? 0
        for environment in configuration.environments {
            let current = environment.name == configuration.current
            let name = environment.name.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = "\(current ? "*" : " ") \(name)  \(environment.url)"
            if environment.token != nil { line += "  (token set)" }
            if let file = environment.tokenFile { line += "  (token file \(file))" }
            context.output.line(current && context.usesColor ? Style.bold(line) : line)
        }
    }
}
