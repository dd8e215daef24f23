import FleetModels
import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import ModelKit
import NIOCore
import StoreKitLite
import Synchronization

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
        traced: Bool = false,
        metricsText: @escaping @Sendable () -> String
    ) -> (router: Router<BasicRequestContext>, operations: [FleetOperation]) {
        // HEAD is served wherever GET is, with the GET's header fields and no body (RFC 9110 §9.3.2).
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let registry = OperationRegistry()
        // Outermost, so that the request's span covers everything and continues the caller's `traceparent`; only
        // with a tracer installed, since it would otherwise look one up for every request to do nothing.
        if traced { router.add(middleware: TracingMiddleware()) }
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
