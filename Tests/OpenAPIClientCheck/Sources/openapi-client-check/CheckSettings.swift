import Foundation

/// Where fleetd listens and the token its writes need: from the arguments, else from the environment.
struct CheckSettings {
    var baseURL: URL
    var token: String

    init(arguments: [String], environment: [String: String]) throws(CheckFailure) {
        let given = Array(arguments.dropFirst())
        guard given.count <= 2 else { throw CheckFailure("too many arguments") }
        guard let url = given.first ?? environment["FLEETD_URL"], !url.isEmpty else {
            throw CheckFailure("no base URL (argument 1 or FLEETD_URL)")
        }
        guard let baseURL = URL(string: url), baseURL.scheme == "http" || baseURL.scheme == "https" else {
            throw CheckFailure("not an http(s) URL: \(url)")
        }
        guard let token = given.dropFirst().first ?? environment["FLEETD_TOKEN"], !token.isEmpty else {
            throw CheckFailure("no bearer token (argument 2 or FLEETD_TOKEN)")
        }
        self.baseURL = baseURL
        self.token = token
    }
}
