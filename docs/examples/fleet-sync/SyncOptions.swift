import ArgumentParser
import Foundation
import RequestKit
import ServiceModules

/// fleet-sync's flags, its `--help`, and the check of their values that runs before anything is opened.
struct SyncOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-sync",
        abstract: "Copy fleetd's vehicles into a store of its own, once or every few seconds.",
        discussion: """
            Reads every page of fleetd's GET /v2/vehicles, then replaces the copy in the store in one unit of work: \
            readers of the store see the old copy or the new one. Without --once it syncs every --every seconds \
            until SIGTERM or Ctrl-C, logging each run on standard error.

            EXIT CODES: 0 synced; 1 the sync failed (fleetd's answer, the store); 2 a flag is wrong; 3 fleetd is \
            not reachable (--once).
            """
    )

    @Option(help: "fleetd's base URL, without the API version, for example http://127.0.0.1:8080.")
    var fleetd: String

    @Option(help: "Where the copy goes: a SQLite file (created when missing), or a postgres:// URL.")
    var store: String

    @Flag(help: "Sync once and exit.")
    var once = false

    @Option(help: "Seconds between two syncs, without --once.")
    var every = 60

    /// What is wrong with the flags' values, each naming its flag; empty when nothing is. Opens nothing.
    func problems(storeModule: StoreModule) -> [String] {
        var problems: [String] = []
        if let problem = Self.fleetdProblem(fleetd) { problems.append("--fleetd \(problem)") }
        // The store module words its problems for its settings ("store: …"); here they belong to --store.
        for problem in storeModule.problems() {
            let text = problem.hasPrefix("store: ") ? String(problem.dropFirst("store: ".count)) : problem
            problems.append("--store \(Self.redacted(store)): \(text)")
        }
        if every < 1 { problems.append("--every \(every): give a number of seconds, 1 or more") }
        return problems
    }

    /// Why `text` cannot be fleetd's base URL, or `nil`: a scheme is missing, or it ends in the API version, which
    /// fleet-sync adds itself.
    static func fleetdProblem(_ text: String) -> String? {
        if !text.contains("://"), (try? ServiceEnvironment(name: "fleetd", baseURL: "http://" + text)) != nil {
            return "\(text) has no scheme: did you mean http://\(text)?"
        }
        let environment: ServiceEnvironment
        do {
            environment = try ServiceEnvironment(name: "fleetd", baseURL: text)
        } catch {
            return "\(text) is not usable: \(error.reason)"
        }
        let components = environment.baseURL.path.split(separator: "/")
        guard let last = components.last, ["v1", "v2"].contains(last.lowercased()) else { return nil }
        var base = URLComponents(url: environment.baseURL, resolvingAgainstBaseURL: false)
        base?.path = components.dropLast().map { "/" + $0 }.joined()
        return
            "\(text) ends in the API version /\(last), which fleet-sync adds itself: give \(base?.string ?? "the daemon's URL")"
    }

    /// fleetd's URL for the v2 API, as the request client takes it.
    var fleetdV2: String { (fleetd.hasSuffix("/") ? fleetd : fleetd + "/") + "v2/" }

    /// The store's URL with its password, if any, left out: fit for a message.
    static func redacted(_ store: String) -> String {
        guard var components = URLComponents(string: store), components.password != nil else { return store }
        components.percentEncodedPassword = "***"
        return components.string ?? store
    }
}
