public import FleetModels
import Foundation
import HTTPTypes
public import ModelKit
public import RequestKit

/// The fleet API's endpoints, one namespace per API version, all sent through the same `RequestClient`.
///
/// Every endpoint decodes `application/problem+json` error bodies into ``FleetModels/Problem`` (read them with
/// `RequestKitError.errorBody(as:)`, or let ``FleetClient`` turn them into a ``FleetClientError``). Writes carry
/// no token themselves: the client's ``FleetClient/authorizationDecorator(token:)`` adds it.
///
/// ```swift
/// let vehicles = try await requestClient.send(FleetAPI.V1.list())          // GET v1/vehicles
/// let page = try await requestClient.send(FleetAPI.V2.list(VehicleQuery(make: "Volvo")))  // GET v2/vehicles?make=Volvo
/// ```
public enum FleetAPI {
    /// The media type of JSON request bodies.
    static let json = "application/json"

    /// Encodes a request body with ModelKit's coder settings (ISO 8601 dates).
    static func body(_ value: some Encodable) throws(FleetClientError) -> ClientRequest.Body {
        do {
            return .data(try ModelCoding.encode(value))
        } catch {
            throw FleetClientError.invalidInput("the request body cannot be encoded: \(error)")
        }
    }

    /// `/v1/vehicles`: plain arrays of the frozen v1 shape; full replacement with `PUT`.
    public enum V1: EndpointGroup {
        public static let apiVersion: APIVersion? = .v1
        public static let resourcePath = "vehicles"

        /// `GET /v1/vehicles`: every vehicle.
        public static func list() -> Endpoint<[FleetModels.V1.Vehicle]> {
            endpoint(.get, name: "v1.vehicles.list", as: [FleetModels.V1.Vehicle].self)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
        }

        /// `GET /v1/vehicles/{id}`.
        public static func vehicle(_ id: ModelID<Vehicle>) -> Endpoint<FleetModels.V1.Vehicle> {
            endpoint(.get, id.uuidString, name: "v1.vehicles.get", as: FleetModels.V1.Vehicle.self)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
        }

        /// `POST /v1/vehicles` (needs the token): answers `201` with the new vehicle.
        public static func create(
            _ input: FleetModels.V1.VehicleInput
        ) throws(FleetClientError) -> Endpoint<FleetModels.V1.Vehicle> {
            endpoint(.post, name: "v1.vehicles.create", as: FleetModels.V1.Vehicle.self)
                .body(try FleetAPI.body(input), contentType: FleetAPI.json)
                .acceptingStatus(200...201)
                .errorBody(Problem.self)
        }

        /// `PUT /v1/vehicles/{id}` (needs the token): replaces the v1 fields.
        public static func replace(
            _ id: ModelID<Vehicle>,
            with input: FleetModels.V1.VehicleInput
        ) throws(FleetClientError) -> Endpoint<FleetModels.V1.Vehicle> {
            endpoint(.put, id.uuidString, name: "v1.vehicles.replace", as: FleetModels.V1.Vehicle.self)
                .body(try FleetAPI.body(input), contentType: FleetAPI.json)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
        }

        /// `DELETE /v1/vehicles/{id}` (needs the token): answers `204`.
        public static func delete(_ id: ModelID<Vehicle>) -> Endpoint<EmptyResponse> {
            endpoint(.delete, id.uuidString, name: "v1.vehicles.delete", as: EmptyResponse.self)
                .acceptingStatus(200...204)
                .errorBody(Problem.self)
        }
    }

    /// `/v2/vehicles`: cursor-paginated, filtered lists; revisions as entity tags for optimistic concurrency.
    public enum V2: EndpointGroup {
        public static let apiVersion: APIVersion? = .v2
        public static let resourcePath = "vehicles"

        /// `GET /v2/vehicles?limit&cursor&make&modelYear&due`: one page.
        public static func list(_ query: VehicleQuery = VehicleQuery()) -> Endpoint<FleetModels.V2.VehiclePage> {
            var endpoint = endpoint(.get, name: "v2.vehicles.list", as: FleetModels.V2.VehiclePage.self)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
            for (name, value) in query.queryItems {
                endpoint = endpoint.query(name, value)
            }
            return endpoint
        }

        /// `GET /v2/vehicles/{id}`; the response's `ETag` is the revision.
        public static func vehicle(_ id: ModelID<Vehicle>) -> Endpoint<FleetModels.V2.Vehicle> {
            endpoint(.get, id.uuidString, name: "v2.vehicles.get", as: FleetModels.V2.Vehicle.self)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
        }

        /// `POST /v2/vehicles` (needs the token): answers `201` with the vehicle, its `ETag` and `Location`.
        public static func create(
            _ input: FleetModels.V2.VehicleInput
        ) throws(FleetClientError) -> Endpoint<FleetModels.V2.Vehicle> {
            endpoint(.post, name: "v2.vehicles.create", as: FleetModels.V2.Vehicle.self)
                .body(try FleetAPI.body(input), contentType: FleetAPI.json)
                .acceptingStatus(200...201)
                .errorBody(Problem.self)
        }

        /// `PATCH /v2/vehicles/{id}` (needs the token) with `If-Match: "<ifMatch>"` when given: a stale revision
        /// answers `412`; a stale `revision` in the body answers `409`; neither answers `428`.
        public static func update(
            _ id: ModelID<Vehicle>,
            _ patch: FleetModels.V2.VehiclePatch,
            ifMatch revision: Int?
        ) throws(FleetClientError) -> Endpoint<FleetModels.V2.Vehicle> {
            var endpoint = endpoint(.patch, id.uuidString, name: "v2.vehicles.update", as: FleetModels.V2.Vehicle.self)
                .body(try FleetAPI.body(patch), contentType: FleetAPI.json)
                .acceptingStatus(200...200)
                .errorBody(Problem.self)
            if let revision {
                endpoint = endpoint.header(.ifMatch, entityTag(revision))
            }
            return endpoint
        }

        /// `DELETE /v2/vehicles/{id}` (needs the token), with `If-Match` when a revision is given.
        public static func delete(_ id: ModelID<Vehicle>, ifMatch revision: Int? = nil) -> Endpoint<EmptyResponse> {
            var endpoint = endpoint(.delete, id.uuidString, name: "v2.vehicles.delete", as: EmptyResponse.self)
                .acceptingStatus(200...204)
                .errorBody(Problem.self)
            if let revision {
                endpoint = endpoint.header(.ifMatch, entityTag(revision))
            }
            return endpoint
        }

        /// A revision as the strong entity tag fleetd uses (`"3"`).
        public static func entityTag(_ revision: Int) -> String {
            "\"\(revision)\""
        }

        /// The revision in an entity tag (`"3"`, or weak `W/"3"`), or `nil` when it holds none.
        public static func revision(fromEntityTag tag: String) -> Int? {
            var text = Substring(tag.trimmingCharacters(in: .whitespaces))
            if text.hasPrefix("W/") { text = text.dropFirst(2) }
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = text.dropFirst().dropLast()
            }
            return Int(text)
        }
    }

    /// `GET /health`: liveness and store readiness (`{"status":"ok","store":"ready"}`).
    public static func health() -> Endpoint<Health> {
        Endpoint(.get, "health", name: "health", as: Health.self).acceptingStatus(200...200).errorBody(Problem.self)
    }
}

/// What `GET /health` answers.
public struct Health: Codable, Sendable, Hashable {
    /// `ok` when the daemon is up.
    public var status: String
    /// `ready` when the store is open.
    public var store: String?

    /// A health report.
    public init(status: String, store: String? = nil) {
        self.status = status
        self.store = store
    }
}
