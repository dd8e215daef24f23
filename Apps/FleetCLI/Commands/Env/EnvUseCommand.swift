public import ArgumentParser

/// `fleet env use NAME`.
public struct EnvUseCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "use",
        abstract: "Make an environment the current one (persisted).",
        discussion: GlobalOptions.helpPointer
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
        configuration.current = name
        try store.save(configuration)
        if global.json {
            context.output.line(#"{"current": "\#(name)", "url": "\#(environment.url)"}"#)
        } else {
            context.output.line("now using \"\(name)\" (\(environment.url))")
        }
    }
}
