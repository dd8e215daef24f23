public import ArgumentParser

/// `fleet`: the root command. It runs nothing itself; its subcommands do.
public struct FleetCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Manage a vehicle fleet served by fleetd.",
        discussion: """
            Talks to fleetd's v1 or v2 API (--api), keeps an offline copy (fleet sync, --offline) and an HTTP \
            cache, switches between daemons (fleet env), and sends raw requests and downloads for debugging. The \
            options below apply to every command, before or after its name.

            CACHE AND OFFLINE:
              GET answers are kept in http-cache.sqlite in the data folder (below; at most 32 MiB in 2,000 answers, \
            none over 4 MiB; the least recently used go first). A repeated read asks fleetd with If-None-Match and \
            uses the kept answer when it says 304 Not Modified. Deleting the file clears the cache; a file that is \
            not a cache is left alone and fleet goes on without one, with a warning.
              --offline never reaches fleetd. 'vehicles get' and 'vehicles list' read the offline copy that 'fleet \
            sync' made; a vehicle the copy does not hold, or a listing before the first sync, comes from the cache \
            (v2 answers, shown in v1's shape with --api v1). 'fleet request --offline' answers a GET from the cache \
            alone. Nothing in either: exit code 5.

            CONFIGURATION:
              Environments live in config.json in $FLEET_CONFIG_DIR, else $XDG_CONFIG_HOME/fleet, else \
            ~/.config/fleet. The built-in environment 'local' is http://127.0.0.1:8080. Offline copies and the HTTP \
            cache live in the data folder: $FLEET_DATA_DIR, else $XDG_DATA_HOME/fleet, else ~/.local/share/fleet.
              The token for writes: --token, else $FLEET_TOKEN, else the environment's token or token file (fleet \
            env add --token, --token-file), else, for a daemon on loopback on the default daemon's port \
            ($FLEETD_PORT, else the port in its fleetd.json, else 8080), the token fleetd wrote to its data folder \
            ($FLEETD_DATA_DIR, else $XDG_DATA_HOME/fleetd, else ~/.local/share/fleetd).
              Tables and colours only when standard output is a terminal and NO_COLOR is unset.

            \(FleetExitCode.helpText)
            """,
        subcommands: [
            VehiclesCommand.self, SyncCommand.self, EnvCommand.self, RequestCommand.self, DownloadCommand.self,
        ]
    )

    /// The version `fleet --version` prints.
    public static let version = "0.1.0"

    /// The global options may also come before the command's name (`fleet --api v1 vehicles list`): ArgumentParser
    /// hands an option group it parsed for a parent to the subcommand that declares the same group. Their help is
    /// shown here only; each subcommand declares the group hidden and points here (``GlobalOptions/helpPointer``).
    @OptionGroup public var global: GlobalOptions

    /// `--version`, declared here rather than as the configuration's `version` so that it is listed in the root's
    /// help only, not again in every subcommand's.
    @Flag(name: .customLong("version"), help: "Show the version.")
    public var showsVersion = false

    public init() {}
}

/// `fleet vehicles`: the vehicle commands.
public struct VehiclesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vehicles",
        abstract: "List, show, add, change and remove vehicles.",
        discussion: GlobalOptions.helpPointer,
        subcommands: [
            VehiclesListCommand.self, VehiclesGetCommand.self, VehiclesAddCommand.self, VehiclesUpdateCommand.self,
            VehiclesRemoveCommand.self,
        ]
    )

    /// Global options between `vehicles` and the command's name (see ``FleetCommand/global``).
    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    public init() {}
}

/// `fleet env`: the environment commands.
public struct EnvCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "env",
        abstract: "List, add, switch and remove environments (the daemons fleet talks to).",
        discussion: GlobalOptions.helpPointer,
        subcommands: [EnvListCommand.self, EnvUseCommand.self, EnvAddCommand.self, EnvRemoveCommand.self]
    )

    /// Global options between `env` and the command's name (see ``FleetCommand/global``).
    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    public init() {}
}
