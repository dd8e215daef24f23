import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

/// Runs the scenario with the client swift-openapi-generator made from fleetd's `/v2` document, at its default
/// settings, against a live fleetd.
///
///     openapi-client-check [BASE_URL [TOKEN]]     default: FLEETD_URL and FLEETD_TOKEN
///
/// Prints one line per check (`ok  NAME` or `FAIL NAME: REASON`); exits 1 when any check fails, 2 on bad usage.
@main
struct OpenAPIClientCheck {
    static func main() async {
        let settings: CheckSettings
        do {
            settings = try CheckSettings(
                arguments: CommandLine.arguments,
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            print("\(error)")
            print("usage: openapi-client-check [BASE_URL [TOKEN]]   (or FLEETD_URL and FLEETD_TOKEN)")
            exit(2)
        }
        let transport = URLSessionTransport()
        let bearer = BearerTokenMiddleware(token: settings.token)
        let scenario = Scenario(
            client: Client(serverURL: settings.baseURL, transport: transport, middlewares: [bearer]),
            malformedBodyClient: Client(
                serverURL: settings.baseURL,
                transport: transport,
                middlewares: [bearer, BodyReplacingMiddleware(body: #"{"plate": "OAC-9", "make": "#)]
            )
        )
        var report = CheckReport()
        await scenario.run(into: &report)
        CheckReport.write(report.summary)
        exit(report.failed == 0 ? 0 : 1)
    }
}
