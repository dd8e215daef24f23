public import FleetClient

/// The exit codes of `fleet`, as `docs/fleet-cli.md` and `fleet --help` list them.
public enum FleetExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// Any other failure (a server error, a file that cannot be written, …).
    public static let failure: Int32 = 1
    /// The command line is wrong (unknown option, missing argument, bad value).
    public static let usage: Int32 = 2
    /// The daemon cannot be reached.
    public static let unreachable: Int32 = 3
    /// The token is missing or wrong (401/403).
    public static let unauthorized: Int32 = 4
    /// No such vehicle, environment or path (404).
    public static let notFound: Int32 = 5
    /// A conflict or a failed precondition: stale revision, duplicate plate (409, 412, 428), or an environment
    /// that `fleet env remove` does not remove (`local`, the current one).
    public static let conflict: Int32 = 6
    /// The input was refused, with field paths (400, 422), or is invalid before sending.
    public static let validation: Int32 = 7

    /// The exit code of a fleet client error.
    public static func code(for error: FleetClientError) -> Int32 {
        switch error.code {
        case .unreachable: unreachable
        case .unauthorized: unauthorized
        case .notFound, .notCached: notFound
        case .conflict, .preconditionFailed: conflict
        case .validation, .invalidInput: validation
        default: failure
        }
    }

    /// The exit code of an HTTP status a raw request got: `0` below 400.
    public static func code(forStatus status: Int) -> Int32 {
        switch status {
        case ..<400: success
        case 401, 403: unauthorized
        case 404: notFound
        case 409, 412, 428: conflict
        case 400, 422: validation
        default: failure
        }
    }

    /// The help text's table.
    static let helpText = """
        EXIT CODES:
          0  success
          1  other failure (server error, file system, …)
          2  usage error (unknown option, missing or bad argument)
          3  fleetd cannot be reached
          4  unauthorized: the token is missing or wrong
          5  not found: no such vehicle, environment or path (offline: not in the copy or the cache)
          6  conflict: stale revision, duplicate plate, precondition failed, environment in use or built in
          7  validation: the input was refused (field paths are listed)
          130  fleet download interrupted by Ctrl-C (the partial file is kept)
        """
}

/// A failure of the command line tool itself (not of the server), with its exit code.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32 = FleetExitCode.failure) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}
