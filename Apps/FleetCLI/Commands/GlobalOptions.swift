public import ArgumentParser

/// The options every `fleet` command takes. `fleet --help` lists them; every other command's help points there.
public struct GlobalOptions: ParsableArguments {
    /// The line in each subcommand's help that stands for the global options it takes but does not list.
    static let helpPointer = "Global options (--env, --api, --json, --token): see 'fleet --help'."

    /// Which API version the vehicle commands speak.
    public enum APIVersionChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case v1, v2
    }

    @Option(name: .customLong("env"), help: "The environment to use (see 'fleet env list'); default: the current one.")
    public var environmentName: String?

    @Option(name: .customLong("api"), help: "The API version to speak: v1 or v2.")
    public var api: APIVersionChoice = .v2

    @Flag(name: .customLong("json"), help: "Print machine-readable JSON instead of text.")
    public var json = false

    @Option(
        name: .customLong("token"),
        help: ArgumentHelp(
            "The bearer token for writes.",
            discussion:
                "Default: $FLEET_TOKEN, then the environment's token or token file, then fleetd's token file for a "
                + "loopback daemon on the default daemon's port."
        )
    )
    public var token: String?

    public init() {}
}
