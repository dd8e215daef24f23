import ArgumentParser
import FleetClient
import Foundation
import ModelKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `fleet` command line tool: `main.swift` calls ``main()``; tests call ``run(_:context:)`` in-process.
public enum Fleet {
    /// Runs `fleet` with the process's arguments, environment and standard streams, and exits with its code.
    public static func main() async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()), context: .process())
        exit(code)
    }

    /// Parses `arguments` (without the program name), runs the command, and returns its exit code
    /// (``FleetExitCode``). Everything is written to `context.output`; nothing is printed directly.
    ///
    /// With `--json`, every error, a usage error included, is one JSON object on standard error:
    /// `{"error": kind, "message": text, "exitCode": code}`, with `status` and `problem` for a daemon's answer.
    public static func run(_ arguments: [String], context: CommandContext) async -> Int32 {
        let arguments = DueShorthand.expand(arguments)
        let json = arguments.prefix(while: { $0 != "--" }).contains("--json")
        let command: any ParsableCommand
        do {
            command = try FleetCommand.parseAsRoot(arguments)
        } catch {
            // An unknown command or option is the first thing to say, before a required option or argument it may
            // have been meant as.
            if FleetCommand.exitCode(for: error) != .success, let tree = CommandTree.fleet(),
                let problem = UnknownCommand.problem(in: arguments, tree: tree)
                    ?? UnknownOption.problem(in: arguments, tree: tree)
            {
                return reportUsage(problem, json: json, context: context)
            }
            return reportParseError(error, json: json, context: context)
        }
        // `--version` is the root's flag, and ArgumentParser takes a parent's flag after a subcommand's name too.
        if arguments.prefix(while: { $0 != "--" }).contains("--version") {
            context.output.line(FleetCommand.version)
            return FleetExitCode.success
        }
        guard let runnable = command as? any FleetRunnable else {
            // `fleet help …`, or a command group without a subcommand: their `run()` throws the request for
            // help, which is printed like any other parse outcome.
            do {
                var command = command
                try command.run()
                context.output.write(FleetCommand.helpMessage(for: type(of: command)) + "\n")
                return FleetExitCode.success
            } catch {
                return reportParseError(error, json: json, context: context)
            }
        }
        let traced = arguments.prefix(while: { $0 != "--" }).contains("--trace")
        guard traced || context.environment["FLEET_TRACE_ENDPOINT"] != nil else {
            return await execute(runnable, context: context)
        }
        return await CommandTracing.run(
            commandPath(of: runnable, in: arguments),
            endpoint: context.environment["FLEET_TRACE_ENDPOINT"] ?? CommandTracing.defaultEndpoint,
            context: context
        ) {
            await execute(runnable, context: context)
        }
    }

    /// Runs a parsed command and returns its exit code, reporting its error.
    private static func execute(_ runnable: any FleetRunnable, context: CommandContext) async -> Int32 {
        do {
            try await runnable.execute(context)
            return FleetExitCode.success
        } catch {
            return report(error, json: runnable.wantsJSON, context: context)
        }
    }

    /// The words that named the command, such as `fleet vehicles list`: the command's name and its parents', never
    /// an argument (which may be an identifier or a token).
    static func commandPath(of command: any FleetRunnable, in arguments: [String]) -> String {
        let name = type(of: command).configuration.commandName ?? ""
        var path = ["fleet"]
        for argument in arguments.prefix(while: { $0 != "--" }) where !argument.hasPrefix("-") {
            path.append(argument)
            if argument == name { break }
        }
        return path.last == name ? path.joined(separator: " ") : "fleet \(name)"
    }

    /// Prints help, version or a usage error as ArgumentParser words them; usage errors exit with 2.
    static func reportParseError(_ error: any Error, json: Bool, context: CommandContext) -> Int32 {
        let code = FleetCommand.exitCode(for: error)
        if code == .success {
            let message = FleetCommand.fullMessage(for: error)
            context.output.write(message.hasSuffix("\n") ? message : message + "\n")
            return FleetExitCode.success
        }
        let exitCode = code == .validationFailure ? FleetExitCode.usage : code.rawValue
        if json {
            printJSONError(kind: "usage", message: FleetCommand.message(for: error), code: exitCode, context: context)
        } else {
            context.output.line(FleetCommand.fullMessage(for: error), to: .standardError)
        }
        return exitCode
    }

    /// Prints a usage error fleet words itself (an unknown command or option) and returns 2.
    static func reportUsage(_ problem: UsageProblem, json: Bool, context: CommandContext) -> Int32 {
        if json {
            printJSONError(kind: "usage", message: problem.message, code: FleetExitCode.usage, context: context)
        } else {
            context.output.line(problem.text, to: .standardError)
        }
        return FleetExitCode.usage
    }

    /// Prints an error and returns its exit code.
    static func report(_ error: any Error, json: Bool, context: CommandContext) -> Int32 {
        let message: String
        let code: Int32
        var kind = "failure"
        var status: Int?
        var problem: JSONValue?
        switch error {
        case let error as FleetClientError:
            message = error.description
            code = FleetExitCode.code(for: error)
            kind = error.code.name
            status = error.status
            if let body = error.problem, let data = try? ModelCoding.encode(body) {
                problem = try? JSONValue(parsing: data)
            }
        case let error as CommandFailure:
            message = error.message
            code = error.exitCode
        case let error as ArgumentParser.ValidationError:
            message = error.message
            code = FleetExitCode.usage
            kind = "usage"
        default:
            if FleetCommand.exitCode(for: error) != .failure {
                return reportParseError(error, json: json, context: context)
            }
            message = String(describing: error)
            code = FleetExitCode.failure
        }
        if json {
            printJSONError(kind: kind, message: message, code: code, status: status, problem: problem, context: context)
        } else {
            let prefix = context.usesErrorColor ? "\u{1B}[31merror:\u{1B}[0m" : "error:"
            context.output.line("\(prefix) \(message)", to: .standardError)
        }
        return code
    }

    /// Prints one error as a JSON object on standard error.
    private static func printJSONError(
        kind: String,
        message: String,
        code: Int32,
        status: Int? = nil,
        problem: JSONValue? = nil,
        context: CommandContext
    ) {
        var object: [(key: String, value: JSONValue)] = [
            ("error", .string(kind)), ("message", .string(message)), ("exitCode", .integer(Int64(code))),
        ]
        if let status { object.append(("status", .integer(Int64(status)))) }
        if let problem { object.append(("problem", problem)) }
        context.output.line(JSONValue.object(JSONObject(object)).formatted(.pretty), to: .standardError)
    }
}

/// A command that runs in-process with a ``CommandContext``.
protocol FleetRunnable: ParsableCommand {
    /// Whether errors are printed as JSON.
    var wantsJSON: Bool { get }
    /// Runs the command; throws a ``FleetClientError``, a ``CommandFailure`` or a `ValidationError`.
    func execute(_ context: CommandContext) async throws
}

extension FleetRunnable {
    /// Builds the services for `options`, runs `body`, and shuts the services down.
    func withServices<Result>(
        _ options: GlobalOptions,
        _ context: CommandContext,
        _ body: (FleetServices) async throws -> Result
    ) async throws -> Result {
        let services = try FleetServices(options: options, context: context)
        do {
            let result = try await body(services)
            await services.shutdown()
            return result
        } catch {
            await services.shutdown()
            throw services.explained(error)
        }
    }
}
