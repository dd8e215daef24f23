import Foundation

/// The bearer token a run sends, and where it came from, so that a refusal can name it.
///
/// The first of: `--token`, `$FLEET_TOKEN`, the environment's stored token, the environment's token file, and,
/// for an environment on loopback whose port is the default daemon's port, the token file fleetd generated in its
/// default data folder. A second daemon (another port) never receives the default daemon's token.
struct TokenResolution: Sendable, Hashable {
    /// The token, or `nil` when none was found.
    var token: String?
    /// Where ``token`` came from (`"--token"`, `"the token file /…/token"`), or why there is none.
    var source: String

    /// Resolves the token for `environment` (whose base URL is `url`).
    static func resolve(
        option: String?,
        environment: FleetConfiguration.Environment,
        url: URL,
        context: CommandContext
    ) -> TokenResolution {
        if let option, !option.isEmpty { return TokenResolution(token: option, source: "--token") }
        if let token = context.environment["FLEET_TOKEN"], !token.isEmpty {
            return TokenResolution(token: token, source: "$FLEET_TOKEN")
        }
        let configFile = ConfigurationStore(environment: context.environment).fileURL.path
        if let token = environment.token, !token.isEmpty {
            return TokenResolution(
                token: token,
                source: "the token stored with the environment \"\(environment.name)\" in \(configFile)"
            )
        }
        if let file = environment.tokenFile, !file.isEmpty {
            let described = "the token file \(file) (recorded for the environment \"\(environment.name)\")"
            guard let token = read(file) else {
                return TokenResolution(token: nil, source: "\(described) cannot be read or is empty")
            }
            return TokenResolution(token: token, source: described)
        }
        let daemonFile = FleetPaths.daemonDataFolder(context.environment).appendingPathComponent("token").path
        guard FleetPaths.isLoopback(url) else {
            return TokenResolution(
                token: nil,
                source: "the environment \"\(environment.name)\" has no token, and fleetd's token file is read only "
                    + "for a daemon on this machine"
            )
        }
        let daemonPort = defaultDaemonPort(context.environment)
        guard port(of: url) == daemonPort else {
            return TokenResolution(
                token: nil,
                source: "the environment \"\(environment.name)\" has no token, and fleetd's token file \(daemonFile) "
                    + "belongs to the daemon on port \(daemonPort), not \(port(of: url))"
            )
        }
        guard let token = read(daemonFile) else {
            return TokenResolution(token: nil, source: "fleetd's token file \(daemonFile) cannot be read or is empty")
        }
        return TokenResolution(token: token, source: "fleetd's token file \(daemonFile)")
    }

    /// The message for a `401`: which token was refused, or why none was sent, and what to do.
    func unauthorizedMessage(environmentName: String, url: String) -> String {
        let remedy =
            "pass --token, set FLEET_TOKEN, or record it with 'fleet env add \(environmentName) \(url) "
            + "--token TOKEN' (or --token-file FILE, such as <fleetd data dir>/token)"
        guard token != nil else { return "unauthorized (401): no token was sent: \(source); \(remedy)" }
        return "unauthorized (401): fleetd refused the token from \(source); \(remedy)"
    }

    /// The port the daemon of the default data folder listens on: `$FLEETD_PORT`, else `port` in its `fleetd.json`,
    /// else fleetd's default, 8080 (the same order fleetd reads them in, flags aside).
    static func defaultDaemonPort(_ environment: [String: String]) -> Int {
        if let text = environment["FLEETD_PORT"], let port = Int(text) { return port }
        let file = FleetPaths.daemonDataFolder(environment).appendingPathComponent("fleetd.json")
        if let data = try? Data(contentsOf: file),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let port = (object["port"] as? Int) ?? (object["port"] as? String).flatMap({ Int($0) })
        {
            return port
        }
        return 8080
    }

    private static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    private static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }
}
