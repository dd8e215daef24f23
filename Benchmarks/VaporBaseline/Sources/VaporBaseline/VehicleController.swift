import Fluent
import Foundation
import Vapor

/// `GET /v2/vehicles/:id`, `GET /v2/vehicles` and `POST /v2/vehicles`.
struct VehicleController: RouteCollection {
    /// The bearer token writes need.
    let token: String

    func boot(routes: any RoutesBuilder) throws {
        let vehicles = routes.grouped("v2", "vehicles")
        vehicles.get(use: index)
        vehicles.post(use: create)
        vehicles.get(":id", use: show)
    }

    func create(req: Request) async throws -> Response {
        guard req.headers.bearerAuthorization?.token == token else {
            throw Abort(.unauthorized)
        }
        try VehicleInput.validate(content: req)
        let input = try req.content.decode(VehicleInput.self)
        if let lastServiced = input.maintenance?.lastServiced, lastServiced > Date() {
            throw Abort(.unprocessableEntity, reason: "maintenance.lastServiced must not lie in the future")
        }
        let vehicle = Vehicle()
        vehicle.plate = input.plate
        vehicle.make = input.make
        vehicle.model = input.model
        vehicle.modelYear = input.modelYear
        vehicle.flagged = false
        vehicle.lastServiced = input.maintenance?.lastServiced
        vehicle.revision = 1
        try await vehicle.save(on: req.db)
        let response = try await VehicleDTO(vehicle, cutoff: Self.cutoff()).encodeResponse(status: .created, for: req)
        response.headers.replaceOrAdd(name: .eTag, value: "\"1\"")
        return response
    }

    func show(req: Request) async throws -> Response {
        guard let id = req.parameters.get("id", as: UUID.self) else {
            throw Abort(.badRequest)
        }
        guard let vehicle = try await Vehicle.find(id, on: req.db) else {
            throw Abort(.notFound)
        }
        let response = try await VehicleDTO(vehicle, cutoff: Self.cutoff()).encodeResponse(for: req)
        response.headers.replaceOrAdd(name: .eTag, value: "\"\(vehicle.revision)\"")
        response.headers.replaceOrAdd(name: .cacheControl, value: "max-age=0")
        return response
    }

    func index(req: Request) async throws -> Response {
        let limit = try req.query.get(Int?.self, at: "limit") ?? 50
        guard (1...500).contains(limit) else {
            throw Abort(.badRequest, reason: "limit must be from 1 to 500")
        }
        var query = Vehicle.query(on: req.db).sort(\.$plate)
        if let cursor = try req.query.get(String?.self, at: "cursor") {
            guard let plate = Self.plate(inCursor: cursor) else {
                throw Abort(.badRequest, reason: "not a cursor")
            }
            query = query.filter(\.$plate > plate)
        }
        var vehicles = try await query.limit(limit + 1).all()
        var nextCursor: String?
        if vehicles.count > limit {
            vehicles.removeLast(vehicles.count - limit)
            nextCursor = vehicles.last.map { Self.cursor(after: $0.plate) }
        }
        let cutoff = Self.cutoff()
        let page = VehiclePageDTO(
            items: try vehicles.map { try VehicleDTO($0, cutoff: cutoff) },
            nextCursor: nextCursor
        )
        let response = try await page.encodeResponse(for: req)
        // A page has no revision: its entity tag is a digest of its bytes (FNV-1a, 64 bits).
        if let body = response.body.buffer {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in body.readableBytesView {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            response.headers.replaceOrAdd(
                name: .eTag,
                value: "\"\(String(repeating: "0", count: 16 - hex.count))\(hex)\""
            )
        }
        response.headers.replaceOrAdd(name: .cacheControl, value: "max-age=0")
        return response
    }

    /// Vehicles last serviced before this are due: twelve months ago.
    static func cutoff() -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(byAdding: .month, value: -12, to: Date()) ?? Date()
    }

    /// The cursor after `plate`: `p1:` and the plate, in unpadded base64url.
    static func cursor(after plate: String) -> String {
        Data("p1:\(plate)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func plate(inCursor cursor: String) -> String? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("p1:")
        else { return nil }
        return String(text.dropFirst(3))
    }
}
