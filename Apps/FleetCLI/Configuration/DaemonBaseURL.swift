import Foundation
import RequestKit

/// The rules for a daemon's base URL, as `fleet env add` takes it and `config.json` keeps it: an `http` or `https`
/// URL of the daemon itself, without the API version, which fleet adds (`--api` picks `/v1/` or `/v2/`).
enum DaemonBaseURL {
    /// Why `text` cannot be a daemon's base URL, in one sentence naming the URL to give instead when there is one,
    /// or `nil` when it can be.
    ///
    /// A URL ending in `/v1` or `/v2` is refused rather than cut short: it would be used as `…/v2/v2/vehicles`, and
    /// cutting it silently would store something other than what was typed, with a path prefix
    /// (`https://host/api`) left in doubt.
    static func problem(with text: String) -> String? {
        if !text.contains("://"), (try? ServiceEnvironment(name: "check", baseURL: "http://" + text)) != nil {
            return "\"\(text)\" has no scheme: did you mean http://\(text)?"
        }
        let environment: ServiceEnvironment
        do {
            environment = try ServiceEnvironment(name: "check", baseURL: text)
        } catch {
            return "\"\(text)\" is not a usable base URL: \(error.reason)."
        }
        let path = environment.baseURL.path
        let components = path.split(separator: "/")
        guard let last = components.last, ["v1", "v2"].contains(last.lowercased()) else { return nil }
        var suggestion = URLComponents(url: environment.baseURL, resolvingAgainstBaseURL: false)
        suggestion?.path = components.dropLast().map { "/" + $0 }.joined()
        let without = suggestion?.string.map { ": give \($0) instead" } ?? ""
        return "\"\(text)\" ends in the API version /\(last), which fleet adds itself (--api v1 or v2)\(without)."
    }
}
