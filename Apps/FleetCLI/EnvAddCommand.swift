public import ArgumentParser
import Foundation
import RequestKit

/// `fleet env add NAME URL`.
public struct EnvAddCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an environment, or replace one of the same name."
    )

    @OptionGroup public var global: GlobalOptions

    @Argument(help: "The environment's name, for example staging.")
    public var name: String

    @Argument(help: "The daemon's base URL, for example http://10.0.0.5:8080.")
    public var url: String

    @Flag(help: "Also make it the current environment.")
    public var use = false

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let environment: ServiceEnvironment
        do {
            environment = try ServiceEnvironment(name: name, baseURL: url)
        } catch {
            throw ValidationError("\"\(url)\" is not a usable base URL: \(error.reason).")
        }
        let store = ConfigurationStore(environment: context.environment)
        var configuration = try store.load()
        // --token given here is stored with the environment (the file is readable by its owner only).
        configuration.upsert(
            FleetConfiguration.Environment(
                name: name,
                url: environment.baseURL.absoluteString,
                token: global.token ?? configuration.environment(named: name)?.token
            )
        )
        if use { configuration.current = name }
        try store.save(configuration)
        if global.json {
            context.output.line(
                #"{"name": "\#(name)", "url": "\#(environment.baseURL.absoluteString)", "current": \#(configuration.current == name)}"#
            )
        } else {
            context.output.line(
                "added \"\(name)\" (\(environment.baseURL.absoluteString))\(use ? ", now current" : "")"
            )
        }
    }
}
