public import FleetModels
public import Foundation
import HTTPTypes
public import ModelKit
public import RequestKit

/// The fleet API as typed methods over one `RequestClient`: ``v1`` and ``v2`` for the two API versions, and
/// ``sync(into:pageSize:)`` to pull the offline copy.
///
/// Every method throws a ``FleetClientError`` with a clear message: the daemon is down, the token is wrong, the
/// vehicle is gone, the revision is stale, a field is invalid. The token is not the client's business: install
/// ``authorizationDecorator(token:)`` as middleware of the `RequestClient`.
///
/// ```swift
/// let client = FleetClient(requestClient: requestClient)
/// let created = try await client.v2.create(V2.VehicleInput(plate: "AB-123", make: "Volvo", model: "FH16", modelYear: 2021))
/// let updated = try await client.v2.update(created.id, V2.VehiclePatch(model: "FH"))   // If-Match: "1"
/// ```
public struct FleetClient: Sendable {
    /// The request client every call goes through.
    public let requestClient: RequestClient
    /// How reads (`GET`) use the request client's HTTP cache; writes always go to the daemon.
    ///
    /// `.useProtocol` (the default) reuses what the daemon allows and revalidates the rest; `.onlyIfCached` answers
    /// from the cache alone and fails with ``FleetClientError/Code/notCached`` when it holds no answer. Without a
    /// cache in the request client the policy changes nothing, so an offline reader checks that it has one.
    public var readPolicy: CachePolicy

    /// A client over `requestClient` (its environment names the daemon).
    public init(requestClient: RequestClient, readPolicy: CachePolicy = .useProtocol) {
        self.requestClient = requestClient
        self.readPolicy = readPolicy
    }

    /// The v1 operations (plain arrays, the frozen v1 shape).
    public var v1: V1Operations { V1Operations(client: self) }
    /// The v2 operations (pages, filters, revisions).
    public var v2: V2Operations { V2Operations(client: self) }

    /// A middleware that sends `Authorization: Bearer <token>` with every request, or nothing when `token` is
    /// `nil` or empty. The `RequestClient` is locked to its environment's host, so the token goes nowhere else.
    public static func authorizationDecorator(token: String?) -> RequestDecorator {
        let value = token.flatMap { $0.isEmpty ? nil : "Bearer \($0)" }
        return RequestDecorator { request in
            if let value, request.headerFields[.authorization] == nil {
                request.headerFields[.authorization] = value
            }
        }
    }

    /// `GET /health`.
    public func health() async throws(FleetClientError) -> Health {
        try await send(FleetAPI.health())
    }

    /// Pulls every v2 page (following `nextCursor`) and replaces the offline copy with it in one commit.
    ///
    /// - Returns: the number of vehicles now in the copy.
    @discardableResult
    public func sync(into copy: OfflineCopy, pageSize: Int = 200) async throws(FleetClientError) -> Int {
        let vehicles = try await v2.all(VehicleQuery(limit: pageSize))
        try await copy.replaceAll(with: vehicles)
        return vehicles.count
    }

    // MARK: - Sending

    func send<Response: Sendable>(_ endpoint: Endpoint<Response>) async throws(FleetClientError) -> Response {
        try await response(for: endpoint).value
    }

    func response<Response: Sendable>(
        for endpoint: Endpoint<Response>
    ) async throws(FleetClientError) -> DecodedResponse<Response> {
        let endpoint = endpoint.method == .get ? endpoint.cachePolicy(readPolicy) : endpoint
        do {
            return try await requestClient.response(for: endpoint)
        } catch {
            throw FleetClientError(error, baseURL: requestClient.environment.currentEnvironment.baseURL)
        }
    }
}

extension FleetClient {
    /// When fleetd gave `response`: its `Age` back from now (RequestKit's cache sets it on every answer it
    /// gives), else now.
    static func answerDate<Value>(of response: DecodedResponse<Value>, now: Date = Date()) -> Date {
        guard let age = response.headerFields[.age].flatMap({ TimeInterval($0) }), age >= 0 else { return now }
        return now.addingTimeInterval(-age)
    }

    /// Parses a vehicle ID given as text (a UUID).
    public static func vehicleID(_ text: String) throws(FleetClientError) -> ModelID<Vehicle> {
        do {
            return try ModelID(parsing: text.trimmingCharacters(in: .whitespaces))
        } catch {
            throw FleetClientError.invalidInput("\"\(text)\" is not a vehicle ID (a UUID such as 0190a1b2-…)")
        }
    }

    /// The v1 operations of a ``FleetClient``.
    public struct V1Operations: Sendable {
        let client: FleetClient

        /// Every vehicle.
        public func list() async throws(FleetClientError) -> [V1.Vehicle] {
            try await client.send(FleetAPI.V1.list())
        }

        /// One vehicle.
        public func get(_ id: ModelID<Vehicle>) async throws(FleetClientError) -> V1.Vehicle {
            try await client.send(FleetAPI.V1.vehicle(id))
        }

        /// Adds a vehicle.
        public func create(_ input: V1.VehicleInput) async throws(FleetClientError) -> V1.Vehicle {
            try await client.send(try FleetAPI.V1.create(input))
        }

        /// Replaces the v1 fields of a vehicle.
        public func replace(
            _ id: ModelID<Vehicle>,
            with input: V1.VehicleInput
        ) async throws(FleetClientError)
            -> V1.Vehicle
        {
            try await client.send(try FleetAPI.V1.replace(id, with: input))
        }

        /// Removes a vehicle.
        public func delete(_ id: ModelID<Vehicle>) async throws(FleetClientError) {
            _ = try await client.send(FleetAPI.V1.delete(id))
        }
    }

    /// The v2 operations of a ``FleetClient``.
    public struct V2Operations: Sendable {
        let client: FleetClient

        /// One page.
        public func page(_ query: VehicleQuery = VehicleQuery()) async throws(FleetClientError) -> V2.VehiclePage {
            try await client.send(FleetAPI.V2.list(query))
        }

        /// Every vehicle matching the query's filters, page after page from the query's cursor.
        public func all(_ query: VehicleQuery = VehicleQuery()) async throws(FleetClientError) -> [V2.Vehicle] {
            try await allWithAnswerDate(query).vehicles
        }

        /// Every vehicle matching the query, as ``all(_:)``, and when fleetd gave the oldest of its pages: for an
        /// answer from the HTTP cache, its `Age` back from now; for an answer straight from fleetd, now.
        public func allWithAnswerDate(
            _ query: VehicleQuery = VehicleQuery()
        ) async throws(FleetClientError) -> (vehicles: [V2.Vehicle], answeredAt: Date) {
            var vehicles: [V2.Vehicle] = []
            var cursors = Set<String>()
            var response = try await client.response(for: FleetAPI.V2.list(query))
            var answeredAt = FleetClient.answerDate(of: response)
            vehicles.append(contentsOf: response.value.items)
            while let cursor = response.value.nextCursor {
                guard cursors.insert(cursor).inserted else {
                    throw FleetClientError(
                        .invalidResponse,
                        message: "fleetd sent the cursor \"\(cursor)\" twice; the listing would never end"
                    )
                }
                response = try await client.response(for: FleetAPI.V2.list(query.with(cursor: cursor)))
                answeredAt = min(answeredAt, FleetClient.answerDate(of: response))
                vehicles.append(contentsOf: response.value.items)
            }
            return (vehicles, answeredAt)
        }

        /// One vehicle; its `revision` is what ``update(_:_:)`` sends back.
        public func get(_ id: ModelID<Vehicle>) async throws(FleetClientError) -> V2.Vehicle {
            try await client.send(FleetAPI.V2.vehicle(id))
        }

        /// One vehicle, and when fleetd gave it (as in ``allWithAnswerDate(_:)``).
        public func getWithAnswerDate(
            _ id: ModelID<Vehicle>
        ) async throws(FleetClientError) -> (vehicle: V2.Vehicle, answeredAt: Date) {
            let response = try await client.response(for: FleetAPI.V2.vehicle(id))
            return (response.value, FleetClient.answerDate(of: response))
        }

        /// One vehicle with the revision from its `ETag` (the body's `revision` when there is no ETag).
        public func getWithRevision(
            _ id: ModelID<Vehicle>
        ) async throws(FleetClientError) -> (
            vehicle: V2.Vehicle, revision: Int
        ) {
            let response = try await client.response(for: FleetAPI.V2.vehicle(id))
            let tagged = response.headerFields[.eTag].flatMap(FleetAPI.V2.revision(fromEntityTag:))
            return (response.value, tagged ?? response.value.revision)
        }

        /// Adds a vehicle.
        public func create(_ input: V2.VehicleInput) async throws(FleetClientError) -> V2.Vehicle {
            try await client.send(try FleetAPI.V2.create(input))
        }

        /// Changes a vehicle that was read at `revision`: sends `If-Match: "<revision>"`, so a vehicle changed
        /// meanwhile fails with ``FleetClientError/Code/preconditionFailed`` and nothing is written.
        public func update(
            _ id: ModelID<Vehicle>,
            _ patch: V2.VehiclePatch,
            ifMatch revision: Int
        ) async throws(FleetClientError) -> V2.Vehicle {
            try await client.send(try FleetAPI.V2.update(id, patch, ifMatch: revision))
        }

        /// Reads the vehicle, then changes it with `If-Match` set to the revision it read.
        public func update(
            _ id: ModelID<Vehicle>,
            _ patch: V2.VehiclePatch
        ) async throws(FleetClientError)
            -> V2.Vehicle
        {
            if patch.revision != nil {
                // The body carries the revision (409 when stale); no read needed.
                return try await client.send(try FleetAPI.V2.update(id, patch, ifMatch: nil))
            }
            let read = try await getWithRevision(id)
            return try await update(id, patch, ifMatch: read.revision)
        }

        /// Removes a vehicle; with a revision, only if it is still at that revision (`412` otherwise).
        public func delete(_ id: ModelID<Vehicle>, ifMatch revision: Int? = nil) async throws(FleetClientError) {
            _ = try await client.send(FleetAPI.V2.delete(id, ifMatch: revision))
        }
    }
}
