public import FleetModels
public import Foundation
public import ModelKit
public import RequestKitTesting
import Synchronization

/// fleetd's HTTP contract (Apps/FleetServer/OpenAPI), answered in memory behind a `TestServer` on loopback: v1 and
/// v2 vehicles, bearer tokens on writes, revisions as entity tags (412/409/428), problem+json errors with field
/// paths (422), duplicate plates (409), cursor pagination with filters, `/health`, and `files/blob`, a download
/// that honours `Range` and `If-Range`.
///
/// FleetClientTests and FleetCLITests both use it, from this test-support target.
public final class FakeFleetd: Sendable {
    public static let token = "test-token"
    public static let blobETag = "\"blob-1\""

    private struct State {
        var vehicles: [ModelID<Vehicle>: Vehicle] = [:]
    }

    private let state = Mutex(State())
    /// The bytes `GET /files/blob` serves.
    public let blob: Data

    public init(blobSize: Int = 300_000) {
        var bytes = [UInt8](repeating: 0, count: blobSize)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        blob = Data(bytes)
    }

    /// Starts a `TestServer` answering for this fake, runs `body`, and shuts the server down.
    public func serve<Result>(_ body: (TestServer) async throws -> Result) async throws -> Result {
        try await TestServer.withTestServer(handler: { request in self.handle(request) }, body)
    }

    /// Adds vehicles straight to the store.
    @discardableResult
    public func seed(_ vehicles: [Vehicle]) -> [Vehicle] {
        state.withLock { state in
            for vehicle in vehicles { state.vehicles[vehicle.id] = vehicle }
        }
        return vehicles
    }

    /// Changes a stored vehicle as another client would (bumps the revision).
    public func touch(_ id: ModelID<Vehicle>) {
        state.withLock { state in
            state.vehicles[id]?.revision += 1
        }
    }

    public var count: Int { state.withLock { $0.vehicles.count } }

    // MARK: - Routing

    public func handle(_ request: TestRequest) -> TestResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        switch (request.method, segments) {
        case ("GET", ["health"]):
            return .json(#"{"status":"ok","store":"ready"}"#)
        case ("GET", ["files", "blob"]):
            return download(request)
        case (_, ["v1", "vehicles"]), (_, ["v2", "vehicles"]):
            return collection(request, version: segments[0])
        case (_, let path) where path.count == 3 && (path[0] == "v1" || path[0] == "v2") && path[1] == "vehicles":
            guard let id = try? ModelID<Vehicle>(parsing: path[2]) else {
                return problem(400, "Bad request", ProblemType.badQuery, detail: "the ID is not a UUID")
            }
            return item(request, id: id, version: path[0])
        default:
            return problem(404, "Not found", ProblemType.notFound, detail: "no route for \(request.path)")
        }
    }

    private func authorized(_ request: TestRequest) -> Bool {
        request.header("Authorization") == "Bearer \(Self.token)"
    }

    private func collection(_ request: TestRequest, version: String) -> TestResponse {
        switch request.method {
        case "GET":
            let all = state.withLock { $0.vehicles.values.sorted { $0.plate < $1.plate } }
            if version == "v1" { return encoded(all.map(V1.Vehicle.init(canonical:))) }
            return page(request, all)
        case "POST":
            guard authorized(request) else { return unauthorized() }
            let vehicle: Vehicle
            if version == "v1" {
                guard let input = try? ModelCoding.decode(V1.VehicleInput.self, from: request.body) else {
                    return problem(400, "Malformed body", ProblemType.malformedBody)
                }
                if let failure = invalid(input.validationFailures) { return failure }
                vehicle = input.makeVehicle()
            } else {
                guard let input = try? ModelCoding.decode(V2.VehicleInput.self, from: request.body) else {
                    return problem(400, "Malformed body", ProblemType.malformedBody)
                }
                if let failure = invalid(input.validationFailures) { return failure }
                vehicle = input.makeVehicle()
            }
            let duplicate = state.withLock { state -> Bool in
                if state.vehicles.values.contains(where: { $0.plate == vehicle.plate }) { return true }
                state.vehicles[vehicle.id] = vehicle
                return false
            }
            if duplicate {
                return problem(409, "Conflict", ProblemType.duplicatePlate, detail: "plate \(vehicle.plate) is taken")
            }
            var response =
                version == "v1" ? encoded(V1.Vehicle(canonical: vehicle)) : encoded(V2.Vehicle(canonical: vehicle))
            response.status = 201
            response.headers.append(("Location", "/\(version)/vehicles/\(vehicle.id)"))
            if version == "v2" { response.headers.append(("ETag", "\"\(vehicle.revision)\"")) }
            return response
        default:
            return problem(405, "Method not allowed", "about:blank")
        }
    }

    private func page(_ request: TestRequest, _ all: [Vehicle]) -> TestResponse {
        var limit = 50
        var cursor: String?
        var filtered = all
        for item in request.query {
            let value = item.value ?? ""
            switch item.name {
            case "limit":
                guard let number = Int(value), (1...500).contains(number) else {
                    return problem(
                        400,
                        "Bad query",
                        ProblemType.badQuery,
                        errors: [.init(path: "query.limit", message: "must be between 1 and 500")]
                    )
                }
                limit = number
            case "cursor": cursor = value
            case "make": filtered = filtered.filter { $0.make == value }
            case "modelYear": filtered = filtered.filter { String($0.modelYear) == value }
            case "due": filtered = filtered.filter { ($0.maintenance.due ? "true" : "false") == value }
            default: break
            }
        }
        if let cursor { filtered = filtered.filter { $0.plate > cursor } }
        let items = Array(filtered.prefix(limit))
        let next = filtered.count > limit ? items.last?.plate : nil
        // A validator, as fleetd sends one, so that fleet's HTTP cache keeps the page.
        var response = encoded(V2.VehiclePage(items: items.map(V2.Vehicle.init(canonical:)), nextCursor: next))
        let version = items.map { "\($0.id.uuidString.prefix(8)).\($0.revision)" }.joined(separator: "-")
        response.headers.append(("ETag", "\"page-\(version)\""))
        return response
    }

    private func item(_ request: TestRequest, id: ModelID<Vehicle>, version: String) -> TestResponse {
        let writes = request.method != "GET"
        if writes, !authorized(request) { return unauthorized() }
        guard let existing = state.withLock({ $0.vehicles[id] }) else {
            return problem(404, "Not found", ProblemType.notFound, detail: "no vehicle \(id)")
        }
        let ifMatch = request.header("If-Match")
        switch (request.method, version) {
        case ("GET", "v1"):
            return encoded(V1.Vehicle(canonical: existing))
        case ("GET", _):
            return tagged(encoded(V2.Vehicle(canonical: existing)), existing)
        case ("PUT", "v1"):
            guard let input = try? ModelCoding.decode(V1.VehicleInput.self, from: request.body) else {
                return problem(400, "Malformed body", ProblemType.malformedBody)
            }
            if let failure = invalid(input.validationFailures) { return failure }
            var vehicle = input.applied(to: existing)
            vehicle.maintenance.due = vehicle.maintenance.flagged
            vehicle.revision += 1
            state.withLock { $0.vehicles[id] = vehicle }
            return encoded(V1.Vehicle(canonical: vehicle))
        case ("PATCH", "v2"):
            guard let patch = try? ModelCoding.decode(V2.VehiclePatch.self, from: request.body) else {
                return problem(400, "Malformed body", ProblemType.malformedBody)
            }
            if let failure = invalid(patch.validationFailures) { return failure }
            if let ifMatch {
                guard ifMatch == "\"\(existing.revision)\"" else {
                    return problem(412, "Precondition failed", ProblemType.preconditionFailed, detail: "stale If-Match")
                }
            } else if let revision = patch.revision {
                guard revision == existing.revision else {
                    return problem(409, "Conflict", ProblemType.conflict, detail: "revision \(revision) is stale")
                }
            } else {
                return problem(428, "Precondition required", ProblemType.preconditionRequired)
            }
            var vehicle = patch.applied(to: existing)
            vehicle.maintenance.due = vehicle.maintenance.flagged
            vehicle.revision += 1
            state.withLock { $0.vehicles[id] = vehicle }
            return tagged(encoded(V2.Vehicle(canonical: vehicle)), vehicle)
        case ("DELETE", _):
            if let ifMatch, version == "v2", ifMatch != "\"\(existing.revision)\"" {
                return problem(412, "Precondition failed", ProblemType.preconditionFailed)
            }
            state.withLock { _ = $0.vehicles.removeValue(forKey: id) }
            return .status(204)
        default:
            return problem(405, "Method not allowed", "about:blank")
        }
    }

    private func download(_ request: TestRequest) -> TestResponse {
        let headers = [("ETag", Self.blobETag), ("Content-Type", "application/octet-stream")]
        if let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst(6).dropLast()), start < blob.count,
            request.header("If-Range").map({ $0 == Self.blobETag }) ?? true
        {
            return TestResponse(
                status: 206,
                headers: headers + [("Content-Range", "bytes \(start)-\(blob.count - 1)/\(blob.count)")],
                body: .data(blob.subdata(in: start..<blob.count))
            )
        }
        return TestResponse(status: 200, headers: headers, body: .data(blob))
    }

    // MARK: - Responses

    private func encoded(_ value: some Encodable) -> TestResponse {
        guard let data = try? ModelCoding.encode(value) else {
            return problem(500, "Cannot encode", "about:blank")
        }
        return TestResponse(status: 200, headers: [("Content-Type", "application/json")], body: .data(data))
    }

    private func tagged(_ response: TestResponse, _ vehicle: Vehicle) -> TestResponse {
        var response = response
        response.headers.append(("ETag", "\"\(vehicle.revision)\""))
        return response
    }

    private func invalid(_ failures: [ValidationFailure]) -> TestResponse? {
        guard !failures.isEmpty else { return nil }
        return problem(
            422,
            "Validation failed",
            ProblemType.validation,
            errors: failures.map { Problem.FieldError(path: $0.path, message: $0.message) }
        )
    }

    private func unauthorized() -> TestResponse {
        var response = problem(401, "Unauthorized", ProblemType.unauthorized, detail: "a bearer token is required")
        response.headers.append(("WWW-Authenticate", "Bearer"))
        return response
    }

    private func problem(
        _ status: Int,
        _ title: String,
        _ type: String,
        detail: String? = nil,
        errors: [Problem.FieldError]? = nil
    ) -> TestResponse {
        let body = Problem(type: type, title: title, status: status, detail: detail, errors: errors)
        let data = (try? ModelCoding.encode(body)) ?? Data()
        return TestResponse(status: status, headers: [("Content-Type", Problem.mediaType)], body: .data(data))
    }
}

/// A loopback port that refuses connections for the rest of the test process (``RequestKitTesting/closedLoopbackPort()``).
public func closedPort() async throws -> Int {
    try closedLoopbackPort()
}

/// A loopback port nothing listens on now, for a test that starts a server on it later: a server's port after the
/// server has shut down. Another test's server may be given it meanwhile; use ``closedPort()`` when nothing should
/// ever answer.
public func releasedPort() async throws -> Int {
    let server = try await TestServer.start(handler: { _ in .status(200) })
    let port = server.port
    try await server.shutdown()
    return port
}

/// A fresh temporary folder, removed by the caller.
public func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Some vehicles with distinct plates.
public func sampleVehicles(_ count: Int) -> [Vehicle] {
    (0..<count).map { index in
        Vehicle(
            plate: String(format: "AB-%03d", index),
            make: index % 2 == 0 ? "Volvo" : "Scania",
            model: "FH\(index)",
            modelYear: 2015 + index % 5,
            maintenance: Maintenance(flagged: index % 3 == 0)
        )
    }
}
