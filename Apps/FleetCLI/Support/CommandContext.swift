import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a command runs with: environment variables, where it writes, and whether its streams are terminals.
///
/// ``Fleet/main()`` uses ``process()``; tests build one with a temporary configuration folder and an
/// ``OutputBuffer``.
public struct CommandContext: Sendable {
    /// Environment variables (`FLEET_TOKEN`, `FLEET_CONFIG_DIR`, `NO_COLOR`, `HOME`, …).
    public var environment: [String: String]
    /// Where output goes.
    public var output: any OutputSink
    /// Whether standard output is a terminal: tables and colours only then.
    public var outputIsTerminal: Bool
    /// Whether standard error is a terminal: the download progress bar only then.
    public var errorIsTerminal: Bool
    /// The connect timeout (at most 1 s for a daemon on loopback): AsyncHTTPClient retries a refused connection
    /// until it passes, so it is also how long "cannot reach fleetd" takes.
    public var connectTimeout: Duration
    /// What stops `fleet download` early, keeping its partial file (Ctrl-C for the process).
    public var interruption: Interruption

    /// A context; not a terminal unless told.
    public init(
        environment: [String: String],
        output: any OutputSink,
        outputIsTerminal: Bool = false,
        errorIsTerminal: Bool = false,
        connectTimeout: Duration = .seconds(10),
        interruption: Interruption = Interruption()
    ) {
        self.environment = environment
        self.output = output
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.connectTimeout = connectTimeout
        self.interruption = interruption
    }

    /// The running process's context: its environment, standard streams and `isatty`.
    public static func process() -> CommandContext {
        CommandContext(
            environment: ProcessInfo.processInfo.environment,
            output: StandardOutput(),
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1,
            interruption: .sigint()
        )
    }

    /// Whether to colour standard output: on a terminal, and `NO_COLOR` unset.
    var usesColor: Bool { outputIsTerminal && environment["NO_COLOR"] == nil }
    /// Whether to colour standard error.
    var usesErrorColor: Bool { errorIsTerminal && environment["NO_COLOR"] == nil }
}
