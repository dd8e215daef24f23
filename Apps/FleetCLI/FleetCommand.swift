public import ArgumentParser

/// `fleet`: the root command. It runs nothing itself; its subcommands do.
public struct FleetCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Manage a vehicle fleet served by fleetd.",
        discussion: """
            Talks to fleetd's v1 or v2 API (--api), keeps an offline copy (fleet sync, --offline), switches \
            between daemons (fleet env), and sends raw requests and downloads for debugging.

            CONFIGURATION:
              Environments live in config.json in $FLEET_CONFIG_DIR, else $XDG_CONFIG_HOME/fleet, else \
            ~/.config/fleet. The built-in environment 'local' is http://127.0.0.1:8080. Offline copies live in \
            $FLEET_DATA_DIR, else $XDG_DATA_HOME/fleet, else ~/.local/share/fleet.
              The token for writes: --token, else $FLEET_TOKEN, else the environment's token or token file (fleet \
            env add --token, --token-file), else, for a daemon on loopback on the default daemon's port \
            ($FLEETD_PORT, else the port in its fleetd.json, else 8080), the token fleetd wrote to its data folder \
            ($FLEETD_DATA_DIR, else $XDG_DATA_HOME/fleetd, else ~/.local/share/fleetd).
              Tables and colours only when standard output is a terminal and NO_COLOR is unset.

            \(FleetExitCode.helpText)
            """,
        version: "0.1.0",
        subcommands: [
            VehiclesCommand.self, SyncCommand.self, EnvCommand.self, RequestCommand.self, DownloadCommand.self,
        ]
    )

    /// The global options may also come before the command's name (`fleet --api v1 vehicles list`): ArgumentParser
    /// hands an option group it parsed for a parent to the subcommand that declares the same group.
    @OptionGroup public var global: GlobalOptions

    public init() {}
}

/// `fleet vehicles`: the vehicle commands.
public struct VehiclesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vehicles",
        abstract: "List, show, add, change and remove vehicles.",
        subcommands: [
            VehiclesListCommand.self, VehiclesGetCommand.self, VehiclesAddCommand.self, VehiclesUpdateCommand.self,
            VehiclesRemoveCommand.self,
        ]
    )

    /// Global options between `vehicles` and the command's name (see ``FleetCommand/global``).
    @OptionGroup public var global: GlobalOptions

    public init() {}
}

/// `fleet env`: the environment commands.
public struct EnvCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "env",
        abstract: "List, add and switch environments (the daemons fleet talks to).",
        subcommands: [EnvListCommand.self, EnvUseCommand.self, EnvAddCommand.self]
    )

    /// Global options between `env` and the command's name (see ``FleetCommand/global``).
    @OptionGroup public var global: GlobalOptions

    public init() {}
}
