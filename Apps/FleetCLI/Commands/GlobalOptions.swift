public import ArgumentParser

/// The options every `fleet` command takes. `fleet --help` lists them; every other command's help points there.
public struct GlobalOptions: ParsableArguments {
    /// The line in each subcommand's help that stands for the global options it takes but does not list.
    static let helpPointer = "Global options (--env, --api, --json, --token, --trace): see 'fleet --help'."

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

    @Flag(
        name: .customLong("trace"),
        help: ArgumentHelp(
            "Send this command's spans to an OpenTelemetry collector.",
            discussion:
                "Over OTLP/HTTP to $FLEET_TRACE_ENDPOINT (default http://127.0.0.1:4318), with the trace context in "
                + "every request, so fleetd's and its store's spans join the same trace. Setting FLEET_TRACE_ENDPOINT "
                + "turns tracing on without the flag."
        )
    )
    public var trace = false

    public init() {}
}
