public import ArgumentParser
import Foundation
import RequestKit

/// `fleet env add NAME URL`.
public struct EnvAddCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an environment, or replace one of the same name.",
        discussion: """
            --token stores a token with the environment; --token-file records a file to read it from at each run, \
            such as the token file of a second fleetd: --token-file <its data dir>/token. Without either, an \
            environment added again keeps what it had.

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The environment's name, for example staging.")
    public var name: String

    @Argument(help: "The daemon's base URL without the API version, for example http://10.0.0.5:8080.")
    public var url: String

    @Flag(help: "Also make it the current environment.")
    public var use = false

    @Option(
        name: .customLong("token-file"),
        help: "A file holding the token for writes, read at each run (for example <fleetd data dir>/token)."
    )
    public var tokenFile: String?

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if global.token != nil, tokenFile != nil {
            throw ValidationError("Give --token or --token-file, not both.")
        }
    }

    func execute(_ context: CommandContext) async throws {
        if let problem = DaemonBaseURL.problem(with: url) { throw ValidationError(problem) }
        let environment: ServiceEnvironment
        do {
            environment = try ServiceEnvironment(name: name, baseURL: url)
        } catch {
            throw ValidationError("\"\(url)\" is not a usable base URL: \(error.reason).")
        }
        let store = ConfigurationStore(environment: context.environment)
        var configuration = try store.load()
        // --token given here is stored with the environment (the file is readable by its owner only); --token-file
        // stores the file's absolute path. Either replaces the other; neither keeps what was there.
        let previous = configuration.environment(named: name)
        var entry = FleetConfiguration.Environment(
            name: name,
            url: environment.baseURL.absoluteString,
            token: previous?.token,
            tokenFile: previous?.tokenFile
        )
        if let token = global.token {
            entry.token = token
            entry.tokenFile = nil
        } else if let tokenFile {
            entry.token = nil
            entry.tokenFile =
                URL(
                    fileURLWithPath: tokenFile,
                    relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
                ).standardizedFileURL.path
        }
        configuration.upsert(entry)
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
