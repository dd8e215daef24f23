public import ArgumentParser
import FleetClient
import Foundation
import HTTPTypes
import ModelKit
import RequestKit

/// `fleet request METHOD PATH`: a raw request, for debugging any server.
public struct RequestCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send a raw HTTP request and print the status, the header fields (-i) and the body.",
        discussion: """
            PATH is resolved against the environment (v2/vehicles, /health) and carries the token; an absolute \
            URL reaches any server, and then no token is sent unless it is the environment's own origin. The exit \
            code follows the status: 0 below 400, else as for the other commands (4 for 401, 5 for 404, …).

            GET answers are kept in fleet's HTTP cache (see 'fleet --help') and revalidated as the server asks; with \
            --offline a GET or HEAD is answered from that cache alone, never sent, and exits with 5 when nothing \
            usable is kept for it.

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Argument(help: "The HTTP method, for example GET, POST, PATCH.")
    public var method: String

    @Argument(help: "A path under the environment's URL, or an absolute http(s) URL.")
    public var path: String

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header field, 'Name: value' (repeatable).")
    public var headers: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: "The request body (JSON unless -H sets Content-Type)."
    )
    public var data: String?

    @Option(name: .customLong("data-file"), help: "Read the request body from a file.")
    public var dataFile: String?

    @Flag(name: [.customShort("i"), .customLong("include")], help: "Also print the response header fields.")
    public var include = false

    @Flag(help: "Answer a GET or HEAD from fleet's HTTP cache only, without sending it.")
    public var offline = false

    public init() {}

    /// The largest response body `fleet request` holds and prints; larger ones are for `fleet download`.
    static let maximumBodyBytes = 64 * 1024 * 1024

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        if data != nil, dataFile != nil {
            throw ArgumentParser.ValidationError("Give --data or --data-file, not both.")
        }
        guard HTTPRequest.Method(method.uppercased()) != nil, !method.isEmpty else {
            throw ArgumentParser.ValidationError("\"\(method)\" is not an HTTP method.")
        }
        for header in headers { _ = try Self.parseHeader(header) }
        if offline, !["GET", "HEAD"].contains(method.uppercased()) {
            throw ArgumentParser.ValidationError("--offline answers GET and HEAD requests only.")
        }
    }

    static func parseHeader(_ text: String) throws -> (HTTPField.Name, String) {
        guard let colon = text.firstIndex(of: ":"),
            let name = HTTPField.Name(String(text[..<colon]).trimmingCharacters(in: .whitespaces))
        else {
            throw ArgumentParser.ValidationError("-H takes 'Name: value', not \"\(text)\".")
        }
        return (name, String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    func execute(_ context: CommandContext) async throws {
        guard let httpMethod = HTTPRequest.Method(method.uppercased()) else {
            throw ArgumentParser.ValidationError("\"\(method)\" is not an HTTP method.")
        }
        var fields = HTTPFields()
        for header in headers {
            let (name, value) = try Self.parseHeader(header)
            fields.append(HTTPField(name: name, value: value))
        }
        var body: ClientRequest.Body?
        if let data {
            body = .data(Data(data.utf8))
        } else if let dataFile {
            do {
                body = try .file(URL(fileURLWithPath: dataFile))
            } catch {
                throw CommandFailure("cannot read \(dataFile): \(error.reason)")
            }
        }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }

        try await withServices(global, context) { services in
            let target = try RawTarget(path, environment: services.environment)
            let client: RequestClient
            if target.sameOrigin {
                client = try await services.requestClient()
            } else {
                // Another host: a client of its own with no token middleware.
                client = try await services.otherHostClient(target.environment)
            }
            var request = ClientRequest(method: httpMethod, url: target.url, headerFields: fields, body: body)
            if offline {
                // Without a cache the policy would change nothing and the request would be sent.
                guard try await services.cache() != nil else {
                    throw FleetClientError(
                        .notCached,
                        message: "fleet's HTTP cache cannot be used, so nothing can be answered offline"
                    )
                }
                request.cachePolicy = .onlyIfCached
            }
            let response: ClientResponse
            let bytes: Data
            do {
                response = try await client.send(request)
                bytes = try await response.body.collect(upTo: Self.maximumBodyBytes)
            } catch let error as RequestKitError where error.code == .bodyTooLarge {
                throw CommandFailure(
                    "the response body is larger than \(ProgressBar.size(Int64(Self.maximumBodyBytes))), the most "
                        + "'fleet request' prints; save it to a file with 'fleet download \(path) --to FILE'"
                )
            } catch let error as RequestKitError where error.code == .notCached {
                throw FleetClientError(
                    .notCached,
                    message: "\(httpMethod) \(target.url.absoluteString) has no usable answer in fleet's HTTP cache "
                        + "(answers are kept from GET requests made online)",
                    url: target.url,
                    underlying: error
                )
            } catch {
                let requestError =
                    error as? RequestKitError
                    ?? RequestKitError(
                        .transportFailed,
                        subject: target.url.absoluteString,
                        reason: "the request failed",
                        url: target.url,
                        underlying: error
                    )
                throw FleetClientError(requestError, baseURL: target.url, service: target.sameOrigin ? "fleetd" : nil)
            }
            try printResponse(response, bytes, context: context)
            let code = FleetExitCode.code(forStatus: response.status.code)
            if response.status.code == 401, target.sameOrigin {
                let message = services.tokenResolution.unauthorizedMessage(
                    environmentName: services.environment.name,
                    url: services.environment.baseURL.absoluteString
                )
                throw CommandFailure(message, exitCode: code)
            }
            if code != FleetExitCode.success {
                throw CommandFailure("the server answered \(response.status.code)", exitCode: code)
            }
        }
    }

    private func printResponse(_ response: ClientResponse, _ bytes: Data, context: CommandContext) throws {
        if global.json {
            var headerObject = JSONObject()
            for field in response.headerFields {
                headerObject[field.name.canonicalName.lowercased()] = .string(field.value)
            }
            let bodyValue: JSONValue =
                (try? JSONValue(parsing: bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
            let object: JSONValue = .object([
                "status": .integer(Int64(response.status.code)), "headers": .object(headerObject),
                "body": bytes.isEmpty ? .null : bodyValue,
            ])
            context.output.line(object.formatted(.pretty))
            return
        }
        let phrase = response.status.reasonPhrase
        let statusLine = "HTTP \(response.status.code)" + (phrase.isEmpty ? "" : " \(phrase)")
        context.output.line(context.usesColor ? Style.bold(statusLine) : statusLine)
        if include {
            for field in response.headerFields {
                context.output.line("\(field.name.canonicalName): \(field.value)")
            }
        }
        if include || !bytes.isEmpty { context.output.line("") }
        context.output.write(bytes, to: .standardOutput)
        if let last = bytes.last, last != UInt8(ascii: "\n") { context.output.line("") }
    }
}

/// Where a raw request or a download goes: a path under the environment, or an absolute URL.
struct RawTarget {
    var url: URL
    /// The environment the URL is under (the configured one, or the URL's own origin).
    var environment: ServiceEnvironment
    /// Whether it is the configured environment's origin, so the token may go with it.
    var sameOrigin: Bool
    /// The path to hand to a client of ``environment``.
    var path: String

    init(_ text: String, environment: ServiceEnvironment) throws {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            do {
                url = try environment.url(for: text)
            } catch {
                throw ArgumentParser.ValidationError("\"\(text)\" is not a usable path: \(error.reason).")
            }
            self.environment = environment
            sameOrigin = true
            path = text
            return
        }
        guard let absolute = URL(string: text),
            var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false),
            absolute.host != nil
        else {
            throw ArgumentParser.ValidationError("\"\(text)\" is not a valid URL.")
        }
        url = absolute
        let query = components.percentEncodedQuery
        path = components.percentEncodedPath + (query.map { "?\($0)" } ?? "")
        components.percentEncodedPath = "/"
        components.percentEncodedQuery = nil
        components.fragment = nil
        let origin = components.url ?? absolute
        let base = environment.baseURL
        sameOrigin =
            base.scheme?.lowercased() == absolute.scheme?.lowercased()
            && base.host?.lowercased() == absolute.host?.lowercased()
            && base.port == absolute.port && absolute.absoluteString.hasPrefix(base.absoluteString)
        if sameOrigin {
            self.environment = environment
            path = String(absolute.absoluteString.dropFirst(base.absoluteString.count))
        } else {
            do {
                self.environment = try ServiceEnvironment(name: "request", baseURL: origin)
            } catch {
                throw ArgumentParser.ValidationError("\"\(text)\" is not a usable URL: \(error.reason).")
            }
        }
    }
}
