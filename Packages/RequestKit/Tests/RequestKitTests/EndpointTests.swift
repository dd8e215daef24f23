import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

struct VehicleV1: Decodable, Sendable, Equatable {
    let plate: String
}

struct VehicleV2: Decodable, Sendable, Equatable {
    let plate: String
    let modelYear: Int
}

enum FleetAPI {
    enum V1: EndpointGroup {
        static let apiVersion: APIVersion? = .v1
        static let resourcePath = "vehicles"

        static func vehicle(_ id: Int) -> Endpoint<VehicleV1> {
            endpoint(.get, "\(id)", name: "vehicles.get", as: VehicleV1.self)
        }
    }

    enum V2: EndpointGroup {
        static let apiVersion: APIVersion? = .v2
        static let resourcePath = "vehicles"
        static let headerFields: HTTPFields = [.accept: "application/vnd.fleet.v2+json"]

        static func vehicle(_ id: Int) -> Endpoint<VehicleV2> {
            endpoint(.get, "\(id)", name: "vehicles.get", as: VehicleV2.self).errorBody(APIProblem.self)
        }

        static func remove(_ id: Int) -> Endpoint<EmptyResponse> {
            endpoint(.delete, "\(id)", name: "vehicles.delete", as: EmptyResponse.self)
        }
    }
}

/// Serves `/v1/vehicles/7` and `/v2/vehicles/7` in their own shapes; anything else is a 404 problem.
let fleetHandler: TestServer.Handler = { request in
    switch (request.method, request.path) {
    case ("GET", "/v1/vehicles/7"):
        return .json(#"{"plate": "AB 7"}"#)
    case ("GET", "/v2/vehicles/7"):
        return request.header("accept") == "application/vnd.fleet.v2+json"
            ? TestResponse(
                status: 200,
                headers: [("Content-Type", "application/vnd.fleet.v2+json")],
                body: .data(Data(#"{"plate": "AB 7", "modelYear": 2021}"#.utf8))
            )
            : .status(406)
    case ("DELETE", "/v2/vehicles/7"):
        return .status(204)
    default:
        return .json(#"{"code": "notFound", "message": "no such vehicle"}"#, status: 404)
    }
}

/// Records the cache policy each request carried.
struct CachePolicyRecorder: Middleware {
    let seen: LockedValue<[CachePolicy]>

    func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        seen.update { $0.append(request.cachePolicy) }
        return try await next(request)
    }
}

struct EndpointTests {
    @Test func versionOneAndTwoLiveSideBySideOverOneClient() async throws {
        try await withClient(handler: fleetHandler) { client, server in
            let v1 = try await client.send(FleetAPI.V1.vehicle(7))
            let v2 = try await client.send(FleetAPI.V2.vehicle(7))
            #expect(v1 == VehicleV1(plate: "AB 7"))
            #expect(v2 == VehicleV2(plate: "AB 7", modelYear: 2021))
            #expect(server.receivedRequests.map(\.path) == ["/v1/vehicles/7", "/v2/vehicles/7"])
            let removed = try await client.response(for: FleetAPI.V2.remove(7))
            #expect(removed.status == .noContent)
        }
    }

    @Test func errorBodiesDecodeIntoTheEndpointsErrorType() async throws {
        try await withClient(handler: fleetHandler) { client, _ in
            await #expect {
                _ = try await client.send(FleetAPI.V2.vehicle(99))
            } throws: { error in
                guard let error = error as? RequestKitError else { return false }
                return error.code == .unacceptableStatus && error.status == 404 && error.operation == "vehicles.get"
                    && error.errorBody(as: APIProblem.self) == APIProblem(code: "notFound", message: "no such vehicle")
            }
        }
    }

    @Test func anEndpointDecoratorAddsATokenJustBeforeSending() async throws {
        let endpoint = Endpoint(.get, "me", as: EchoedRequest.self).decorated { request in
            request.headerFields[.authorization] = "Bearer endpoint-token"
        }
        try await withClient(handler: TestServer.echo) { client, _ in
            let echo = try await client.send(endpoint)
            #expect(echo.authorization == "Bearer endpoint-token")
        }
    }

    @Test func anEndpointDecoratorCanRefuseTheRequest() async throws {
        let endpoint = Endpoint(.get, "me", as: EchoedRequest.self).decorated { _ in throw NotSignedIn() }
        try await withClient(handler: TestServer.echo) { client, server in
            await #expect {
                _ = try await client.send(endpoint)
            } throws: { error in
                (error as? RequestKitError)?.code == .refused
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func statusAndContentTypeAcceptanceIsPerEndpoint() async throws {
        try await withClient(handler: { _ in .text("teapot", status: 418) }) { client, _ in
            let accepted = try await client.send(Endpoint(.get, "pot").acceptingStatus(200...299, 418...418))
            #expect(accepted.text == "teapot")
            await #expect {
                _ = try await client.send(
                    Endpoint(.get, "pot").acceptingStatus(418...418).acceptingContentTypes("application/json")
                )
            } throws: { error in
                (error as? RequestKitError)?.code == .unacceptableContentType
            }
        }
    }

    @Test func theCachePolicyTravelsWithTheRequestForMiddleware() async throws {
        let seen = LockedValue<[CachePolicy]>([])
        var configuration = RequestClient.Configuration()
        configuration.middleware = [CachePolicyRecorder(seen: seen)]
        try await withClient(configuration: configuration, handler: fleetHandler) { client, _ in
            _ = try await client.send(FleetAPI.V1.vehicle(7).cachePolicy(.reuse(maxAge: .seconds(300))))
            _ = try await client.send(FleetAPI.V1.vehicle(7))
        }
        #expect(seen.value == [.reuse(maxAge: .seconds(300)), .useProtocol])
    }
}
