import FleetModels
import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import ModelKit
import NIOCore
import StoreKitLite
import Synchronization

/// What the routes need besides the fleet service.
public struct FleetHTTPSettings: Sendable {
    /// The bearer token writes need.
    public var token: String
    /// The largest request body accepted; larger bodies get 413.
    public var maximumBodyBytes: Int
    /// Page size of v2 lists without `limit`.
    public var defaultPageSize: Int
    /// Largest `limit` of a v2 list.
    public var maximumPageSize: Int

    /// Settings; the token is required, the rest has defaults.
    public init(token: String, maximumBodyBytes: Int = 64 * 1024, defaultPageSize: Int = 50, maximumPageSize: Int = 500)
    {
        self.token = token
        self.maximumBodyBytes = maximumBodyBytes
        self.defaultPageSize = defaultPageSize
        self.maximumPageSize = maximumPageSize
    }
}

/// One operation the router serves: a method and a path template in OpenAPI's spelling (`/v2/vehicles/{id}`).
public struct FleetOperation: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method, upper case.
    public let method: String
    /// The path template.
    public let path: String

    public var description: String { "\(method) \(path)" }
}

/// The fleet API's routes: `/v1`, `/v2`, `/health`, `/metrics` and the OpenAPI documents.
public enum FleetRoutes {
    /// A router serving the fleet API, with the operations it registered (for checking against OpenAPI). Reads are
    /// answered from `cache` while its entries are exact (see ``ReadResponseCache``); `nil` reads the store each
    /// time.
    public static func makeRouter(
        service: FleetService,
        settings: FleetHTTPSettings,
        metrics: FleetMetrics,
        cache: ReadResponseCache? = nil,
        store: FleetStore? = nil,
        accessLog: Logger = Logger(label: "fleetd", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsText: @escaping @Sendable () -> String
    ) -> (router: Router<BasicRequestContext>, operations: [FleetOperation]) {
        // HEAD is served wherever GET is, with the GET's header fields and no body (RFC 9110 §9.3.2).
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let registry = OperationRegistry()
        router.add(middleware: MetricsMiddleware(metrics: metrics, accessLog: accessLog))
        router.add(middleware: ProblemMiddleware(registry: registry))

        registry.add(router, .get, "/health") { _, _ in
            let ready = service.isReady
            let feed = store?.changeFeedStatus
            let health = Health(
                status: ready ? "ok" : "unavailable",
                store: ready ? "ready" : "initializing",
                database: store?.kind,
                schema: store?.schema,
                changeFeed: feed.map { $0.isConnected ? "following" : "reconnecting" }
            )
            return try JSONCoding.response(health, status: ready ? .ok : .serviceUnavailable)
        }
        // `GET /`: where the API's documents are, for a person or a tool that starts at the root.
        registry.add(router, .get, "/") { _, _ in
            try JSONCoding.response(Index(), status: .ok)
        }
        registry.add(router, .get, "/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: metricsText()))
            )
        }
        for version in [1, 2] {
            registry.add(router, .get, "/openapi/v\(version).json") { _, _ in
                guard let document = OpenAPIDocuments.document(version: version) else {
                    throw HTTPProblem(
                        500,
                        type: "about:blank",
                        title: "Internal error",
                        detail: "the OpenAPI document is missing"
                    )
                }
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                return Response(
                    status: .ok,
                    headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: document))
                )
            }
        }

        let writes = BearerAuthMiddleware<BasicRequestContext>(token: settings.token)
        V1Routes(service: service, settings: settings, cache: cache).register(
            on: router.group("v1").add(middleware: writes),
            registry
        )
        V2Routes(service: service, settings: settings, cache: cache).register(
            on: router.group("v2").add(middleware: writes),
            registry
        )
        return (router, registry.operations)
    }

    /// What `GET /` answers.
    struct Index: Encodable {
        let name = "fleetd"
        let openapi = ["v1": "/openapi/v1.json", "v2": "/openapi/v2.json"]
        let health = "/health"
        let metrics = "/metrics"
    }

    struct Health: Encodable {
        let status: String
        let store: String
        /// `sqlite` or `postgresql`.
        let database: String?
        /// For PostgreSQL, the schema holding the store's tables.
        let schema: String?
        /// For a store other daemons share: `following` while their writes are seen, else `reconnecting`.
        let changeFeed: String?
    }
}

/// Registers routes and remembers each as an OpenAPI-style operation.
final class OperationRegistry: Sendable {
    private let registered = Mutex<[FleetOperation]>([])

    var operations: [FleetOperation] { registered.withLock { $0 } }

    /// The methods registered for the templates `path` matches (a `{name}` segment matches any one segment); empty
    /// when no template matches.
    func methods(serving path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: Set<String> = []
        for operation in operations {
            let template = operation.path.split(separator: "/", omittingEmptySubsequences: true)
            guard template.count == segments.count,
                zip(template, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 })
            else { continue }
            methods.insert(operation.method)
        }
        return methods.sorted()
    }

    func add(
        _ routes: some RouterMethods<BasicRequestContext>,
        _ method: HTTPRequest.Method,
        _ path: String,
        prefix: String = "",
        handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) {
        routes.on(RouterPath(path), method: method, use: handler)
        let template = (prefix + path).split(separator: "/").map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }
        let path = "/" + template.joined(separator: "/")
        registered.withLock {
            $0.append(FleetOperation(method: method.rawValue, path: path))
            // The router answers HEAD wherever GET is served.
            if method == .get { $0.append(FleetOperation(method: "HEAD", path: path)) }
        }
    }
}

/// Refuses writes (any method but GET and HEAD) without `Authorization: Bearer <token>`; reads stay open.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method != .get && request.method != .head {
            guard let header = request.headers[.authorization] else {
                throw HTTPProblem(
                    401,
                    type: ProblemType.unauthorized,
                    title: "Unauthorized",
                    detail: "writes need Authorization: Bearer <token>"
                )
            }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", Self.constantTimeEqual(String(parts[1]), token)
            else {
                throw HTTPProblem(
                    401,
                    type: ProblemType.unauthorized,
                    title: "Unauthorized",
                    detail: "the bearer token is not the daemon's token"
                )
            }
        }
        return try await next(request, context)
    }

    /// Compares without returning early on the first differing byte, so timing does not leak the token.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0 && left.count == right.count
    }
}

/// Path and query parsing shared by both versions.
enum RouteInput {
    static func vehicleID(_ context: BasicRequestContext) throws -> ModelID<Vehicle> {
        let text = context.parameters.get("id") ?? ""
        do {
            return try ModelID<Vehicle>(parsing: text)
        } catch {
            throw HTTPProblem(
                400,
                type: ProblemType.badQuery,
                title: "Bad vehicle ID",
                detail: "'\(text)' is not a vehicle ID (a UUID)",
                errors: [Problem.FieldError(path: "path.id", message: "must be a UUID")]
            )
        }
    }

    /// The query parameters, refusing names not in `allowed` and repeated names.
    static func query(_ request: Request, allowed: Set<String>) throws -> [String: String] {
        var values: [String: String] = [:]
        var errors: [Problem.FieldError] = []
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            if !allowed.contains(name) {
                errors.append(Problem.FieldError(path: "query.\(name)", message: "unknown parameter"))
            } else if values[name] != nil {
                errors.append(Problem.FieldError(path: "query.\(name)", message: "given more than once"))
            } else {
                values[name] = String(value)
            }
        }
        if !errors.isEmpty {
            throw badQuery(errors)
        }
        return values
    }

    static func badQuery(_ errors: [Problem.FieldError]) -> HTTPProblem {
        HTTPProblem(
            400,
            type: ProblemType.badQuery,
            title: "Bad query parameter",
            detail: "the query string has parameters this operation refuses",
            errors: errors
        )
    }

    static func location(_ version: Int, _ id: ModelID<Vehicle>) -> HTTPFields {
        var fields = HTTPFields()
        fields[.location] = "/v\(version)/vehicles/\(id.uuidString.lowercased())"
        return fields
    }
}
