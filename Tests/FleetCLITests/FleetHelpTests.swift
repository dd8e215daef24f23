import ArgumentParser
import FleetCLI
import Foundation
import ModelKit
import Testing

/// `--help` of every command parses, exits with 0 and mentions the command's options.
struct FleetHelpTests {
    static let cases: [(arguments: [String], mentions: [String])] = [
        (
            [],
            ["vehicles", "sync", "env", "request", "download", "EXIT CODES", "FLEET_TOKEN", "FLEETD_PORT", "NO_COLOR"]
        ),
        (["vehicles"], ["list", "get", "add", "update", "remove"]),
        (["vehicles", "list"], ["--make", "--model-year", "--due", "--page-size", "--offline"]),
        (["vehicles", "get"], ["<id>", "--offline"]),
        (["vehicles", "add"], ["--plate", "--make", "--model", "--year", "--due", "--last-serviced"]),
        (["vehicles", "update"], ["<id>", "--plate", "--year", "--due", "--last-serviced", "--revision", "If-Match"]),
        (["vehicles", "remove"], ["<id>", "--revision"]),
        (["sync"], ["--page-size"]),
        (["env"], ["list", "use", "add", "remove"]),
        (["env", "list"], []),
        (["env", "use"], ["<name>"]),
        (["env", "add"], ["<name>", "<url>", "--use", "--token", "--token-file"]),
        (["env", "remove"], ["<name>", "local"]),
        (["request"], ["<method>", "<path>", "--header", "--data", "--data-file", "--include"]),
        (["download"], ["<url>", "--to", "--no-resume", "--resume"]),
    ]

    @Test(arguments: cases)
    func helpParsesAndMentionsEveryOption(arguments: [String], mentions: [String]) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        for form in [arguments + ["--help"], ["help"] + arguments] {
            let outcome = await harness.run(form)
            #expect(outcome.code == 0, "\(form)")
            #expect(outcome.output.contains("USAGE: fleet"), "\(form)")
            for mention in mentions {
                #expect(outcome.output.contains(mention), "\(form) should mention \(mention)")
            }
            #expect(outcome.error.isEmpty)
        }
    }

    @Test(arguments: cases.dropFirst())
    func subcommandHelpPointsToTheRootForTheGlobalOptions(arguments: [String], mentions: [String]) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(arguments + ["--help"])
        let pointer = "Global options (--env, --api, --json, --token, --trace): see 'fleet --help'."
        #expect(outcome.output.components(separatedBy: pointer).count == 2, "\(arguments): one pointer line")
        for option in ["--env <env>", "--api <api>", "--token <token>", "--version", "  --json ", "  --trace "] {
            #expect(!outcome.output.contains(option), "\(arguments) lists \(option)")
        }
    }

    @Test func theRootHelpListsTheGlobalOptionsOnce() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["--help"])
        for option in [
            "  --env <env>", "  --api <api>", "  --json ", "  --token <token>", "  --trace ", "  --version ",
        ] {
            #expect(outcome.output.components(separatedBy: option).count == 2, "\(option) once")
        }
    }

    /// The whole help of one command, as a person sees it in an 80-column terminal.
    @Test func theHelpOfARemoveIsPinned() {
        let help = FleetCommand.helpMessage(for: VehiclesRemoveCommand.self, columns: 80)
        #expect(
            help == """
                OVERVIEW: Remove a vehicle (needs the token).

                Global options (--env, --api, --json, --token, --trace): see 'fleet --help'.

                USAGE: fleet vehicles remove <id> [--revision <revision>]

                ARGUMENTS:
                  <id>                    The vehicle's ID (a UUID).

                OPTIONS:
                  --revision <revision>   Remove only if the vehicle is still at this revision
                                          (v2 only).
                  -h, --help              Show help information.

                """
        )
    }

    @Test func helpMessagesComeFromTheCommandTypes() {
        let list = FleetCommand.helpMessage(for: VehiclesListCommand.self, columns: 200)
        #expect(list.contains("--offline"))
        #expect(list.contains("List vehicles"))
        let root = FleetCommand.helpMessage(for: FleetCommand.self, columns: 200)
        for code in 0...7 {
            #expect(root.contains("  \(code)  "), "exit code \(code) is documented")
        }
    }

    @Test func versionPrintsAndExitsWithZero() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        for arguments in [["--version"], ["vehicles", "list", "--version"]] {
            let outcome = await harness.run(arguments)
            #expect(outcome.code == 0, "\(arguments)")
            #expect(outcome.output == "0.1.0\n", "\(arguments)")
        }
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        for arguments in [
            ["vehicles", "list", "--bogus"], ["vehicles", "get"], ["nonsense"], ["vehicles", "list", "--api", "v9"],
            ["vehicles", "update", "0190a1b2-0000-7000-8000-000000000000"], ["vehicles", "list", "--page-size", "0"],
        ] {
            let outcome = await harness.run(arguments)
            #expect(outcome.code == 2, "\(arguments): \(outcome.error)")
            #expect(!outcome.error.isEmpty)
        }
    }
}

/// An unknown option is reported first, with the nearest real one.
struct FleetUnknownOptionTests {
    @Test(arguments: [
        (
            ["vehicles", "add", "--plate", "AB-1", "--colour", "red"],
            "Error: Unknown option '--colour'.\n  See 'fleet vehicles add --help' for the options.\n"
        ),
        (
            ["vehicles", "add", "--plate", "AB-1", "--mak", "Volvo", "--model", "FH", "--year", "2020"],
            "Error: Unknown option '--mak'. Did you mean '--make'?\n  See 'fleet vehicles add --help' for the options.\n"
        ),
        (
            ["vehicles", "update", "0190a1b2-0000-7000-8000-000000000000", "--last-service", "2024-05-01"],
            "Error: Unknown option '--last-service'. Did you mean '--last-serviced'?\n"
                + "  See 'fleet vehicles update --help' for the options.\n"
        ),
        (
            ["--api", "v1", "vehicles", "list", "--modelyear", "2020"],
            "Error: Unknown option '--modelyear'. Did you mean '--model-year'?\n"
                + "  See 'fleet vehicles list --help' for the options.\n"
        ),
        (
            ["download", "files/x", "--too", "x.bin"],
            "Error: Unknown option '--too'. Did you mean '--to'?\n  See 'fleet download --help' for the options.\n"
        ),
    ])
    func unknownOptionsAreNamedWithTheNearestRealOne(arguments: [String], message: String) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(arguments)
        #expect(outcome.code == 2)
        #expect(outcome.error == message)
        #expect(outcome.output.isEmpty)
    }

    @Test func optionValuesThatLookLikeOptionsAreNotMistakenForThem() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        // A joined value is a value; the error is the unknown environment, not an unknown option.
        let outcome = await harness.run(["request", "POST", "v2/vehicles", "--data=--x", "--env", "nowhere"])
        #expect(outcome.code == 5, "\(outcome.error)")
    }
}

/// A word that should name a command and names none is reported with the nearest real command.
struct FleetUnknownCommandTests {
    @Test(arguments: [
        (["vehicles", "delete", "0190a1b2-0000-7000-8000-000000000000"], "delete", "remove", "fleet vehicles"),
        (["vehicles", "rm", "0190a1b2-0000-7000-8000-000000000000"], "rm", "remove", "fleet vehicles"),
        (["vehicles", "lst"], "lst", "list", "fleet vehicles"),
        (["vehicles", "ls", "--make", "Volvo"], "ls", "list", "fleet vehicles"),
        (["--env", "staging", "vehicles", "udpate", "x"], "udpate", "update", "fleet vehicles"),
        (["vehicle", "list"], "vehicle", "vehicles", "fleet"),
        (["env", "delete", "staging"], "delete", "remove", "fleet env"),
        (["env", "switch", "staging"], "switch", "use", "fleet env"),
        (["env", "rmove", "staging"], "rmove", "remove", "fleet env"),
    ])
    func anUnknownCommandIsNamedWithTheNearestRealOne(
        arguments: [String],
        typed: String,
        meant: String,
        group: String
    ) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(arguments)
        #expect(outcome.code == 2)
        #expect(
            outcome.error
                == "Error: Unknown command '\(typed)'. Did you mean '\(meant)'?\n  See '\(group) --help' for the commands.\n"
        )
        #expect(outcome.output.isEmpty)
    }

    @Test func aWordCloseToNothingGetsNoSuggestion() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["nonsense"])
        #expect(outcome.code == 2)
        #expect(outcome.error == "Error: Unknown command 'nonsense'.\n  See 'fleet --help' for the commands.\n")
    }

    @Test func argumentsOfACommandThatRunsAreNotMistakenForCommands() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        // `get` takes an ID; `request` a method and a path: none of these words is a command's name.
        let outcome = await harness.run(["vehicles", "get", "not-a-uuid"])
        #expect(outcome.code == 7, "\(outcome.error)")
        let request = await harness.run(["request", "DELETE", "v2/vehicles/x", "--offline"])
        #expect(request.error.contains("--offline answers GET and HEAD requests only"))
    }
}

/// With `--json`, a usage error is one JSON object on standard error, shaped like every other error.
struct FleetJSONUsageErrorTests {
    @Test(arguments: [
        (["vehicles", "list", "--json", "--bogus"], "Unknown option '--bogus'."),
        (
            ["--json", "vehicles", "add", "--plate", "A-1", "--mak", "Volvo"],
            "Unknown option '--mak'. Did you mean '--make'?"
        ),
        (["--json", "vehicles", "delete", "x"], "Unknown command 'delete'. Did you mean 'remove'?"),
        (["vehicles", "get", "--json"], "Missing expected argument '<id>'"),
        (
            ["vehicles", "list", "--api", "v9", "--json"],
            "The value 'v9' is invalid for '--api <api>'. Please provide one of 'v1' and 'v2'."
        ),
        (["vehicles", "list", "--page-size", "0", "--json"], "--page-size must be between 1 and 500."),
    ])
    func usageErrorsAreOneJSONObject(arguments: [String], message: String) async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(arguments)
        #expect(outcome.code == 2)
        #expect(outcome.output.isEmpty)
        let error = try JSONValue(parsing: outcome.error)
        #expect(error["error"]?.stringValue == "usage", "\(outcome.error)")
        #expect(error["message"]?.stringValue == message, "\(outcome.error)")
        #expect(error["exitCode"] == .integer(2))
    }

    @Test func withoutJSONUsageErrorsStayText() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let outcome = await harness.run(["vehicles", "get"])
        #expect(outcome.code == 2)
        #expect(outcome.error.hasPrefix("Error: Missing expected argument '<id>'"))
        #expect(outcome.error.contains("Usage: fleet vehicles get <id>"))
    }
}
