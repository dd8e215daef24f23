import FleetModels
import Foundation
import HTTPTypes
import Hummingbird
import ModelKit

/// `/v2/vehicles`: the full shape, revisions as entity tags, cursor-paginated and filtered lists.
struct V2Routes {
    let service: FleetService
    let settings: FleetHTTPSettings
    let cache: ReadResponseCache?

    func register(on group: RouterGroup<BasicRequestContext>, _ registry: OperationRegistry) {
        let service = service
        let settings = settings
        let cache = cache
        let maximumBytes = settings.maximumBodyBytes
        registry.add(group, .get, "/vehicles", prefix: "/v2") { request, _ in
            let query = try ListQuery(request, settings: settings)
            let filter = query.filter
            // A list filtered on `due` can change as time passes without any write: it is never cached.
            let key = ReadResponseCache.Key.list(
                version: 2,
                make: filter.make,
                modelYear: filter.modelYear,
                after: query.after,
                limit: query.limit
            )
            let response = try await ReadResponseCache.serve(filter.due == nil ? cache : nil, key) {
                let page = try await service.list(filter, after: query.after, limit: query.limit)
                let body = V2.VehiclePage(
                    items: page.vehicles.map(V2.Vehicle.init(canonical:)),
                    nextCursor: page.continueAfter.map(Cursor.encode)
                )
                let bytes = JSONCoding.bytes(capacity: 250 * body.items.count + 64, body.writeJSON)
                // A page has no revision of its own: its entity tag is a digest of its bytes.
                let headers = JSONCoding.headers(eTag: ETag.digest(of: bytes), revalidate: true)
                return (headers, bytes, service.dueStateChange(of: page.vehicles))
            }
            return ETag.answer(request, with: response)
        }
        registry.add(group, .post, "/vehicles", prefix: "/v2") { request, _ in
            let input = try await RequestBodies.decode(
                V2.VehicleInput.self,
                from: request,
                maximumBytes: maximumBytes
            )
            let created = try await service.create(input.makeVehicle())
            var headers = RouteInput.location(2, created.id)
            headers[.eTag] = ETag.make(created.revision)
            return JSONCoding.response(status: .created, headers: headers, V2.Vehicle(canonical: created).writeJSON)
        }
        registry.add(group, .get, "/vehicles/:id", prefix: "/v2") { request, context in
            let id = try RouteInput.vehicleID(context)
            let response = try await ReadResponseCache.serve(cache, .vehicle(version: 2, id: id)) {
                let vehicle = try await service.vehicle(id)
                return (
                    JSONCoding.headers(eTag: ETag.make(vehicle.revision), revalidate: true),
                    JSONCoding.bytes(V2.Vehicle(canonical: vehicle).writeJSON),
                    service.dueStateChange(of: vehicle)
                )
            }
            return ETag.answer(request, with: response)
        }
        registry.add(group, .patch, "/vehicles/:id", prefix: "/v2") { request, context in
            let id = try RouteInput.vehicleID(context)
            let ifMatch = try ETag.ifMatch(request)
            let patch = try await RequestBodies.decode(
                V2.VehiclePatch.self,
                from: request,
                maximumBytes: maximumBytes
            )
            let check: FleetService.RevisionCheck
            switch (ifMatch, patch.revision) {
            case (.some(.revision(let revision)), _): check = .ifMatch(revision)
            case (.some(.any), _): check = .none
            case (nil, .some(let revision)): check = .body(revision)
            case (nil, nil):
                throw HTTPProblem(
                    FleetError(
                        .preconditionRequired,
                        "a v2 update needs the revision it is based on: send If-Match: \"<revision>\" or \"revision\" in the body"
                    )
                )
            }
            // A patch with no member to change is a valid merge patch that changes nothing (RFC 7396): the
            // revision is still checked, and the vehicle is answered as stored, without a write.
            let updated =
                patch.isEmpty
                ? try await service.unchanged(id, check: check)
                : try await service.update(id, check: check, newPlate: patch.plate) { patch.applied(to: $0) }
            return JSONCoding.response(
                headers: [.eTag: ETag.make(updated.revision)],
                V2.Vehicle(canonical: updated).writeJSON
            )
        }
        registry.add(group, .delete, "/vehicles/:id", prefix: "/v2") { request, context in
            let id = try RouteInput.vehicleID(context)
            let check: FleetService.RevisionCheck =
                switch try ETag.ifMatch(request) {
                case .revision(let revision): .ifMatch(revision)
                case .any, nil: .none
                }
            try await service.delete(id, check: check)
            return Response(status: .noContent)
        }
    }
}

/// The query of `GET /v2/vehicles`, checked: every refused parameter is reported by path.
struct ListQuery {
    var filter = VehicleFilter()
    var after: String?
    var limit: Int

    init(_ request: Request, settings: FleetHTTPSettings) throws {
        let values = try RouteInput.query(request, allowed: ["limit", "cursor", "make", "modelYear", "due"])
        var errors: [Problem.FieldError] = []
        limit = settings.defaultPageSize
        if let text = values["limit"] {
            if let value = Int(text), (1...settings.maximumPageSize).contains(value) {
                limit = value
            } else {
                errors.append(
                    .init(path: "query.limit", message: "must be an integer from 1 to \(settings.maximumPageSize)")
                )
            }
        }
        if let text = values["cursor"] {
            if let plate = Cursor.decode(text) {
                after = plate
            } else {
                errors.append(.init(path: "query.cursor", message: "is not a cursor this daemon gave out"))
            }
        }
        if let make = values["make"] {
            if make.isEmpty {
                errors.append(.init(path: "query.make", message: "must not be empty"))
            } else {
                filter.make = make
            }
        }
        if let text = values["modelYear"] {
            // A year no vehicle can have is refused rather than answered with an empty page, as the rule for
            // stored vehicles (and the OpenAPI document) bound it.
            let years = VehicleRules.modelYears
            if let year = Int(text), years.contains(year) {
                filter.modelYear = year
            } else {
                errors.append(
                    .init(
                        path: "query.modelYear",
                        message: "must be an integer from \(years.lowerBound) to \(years.upperBound)"
                    )
                )
            }
        }
        if let text = values["due"] {
            switch text {
            case "true": filter.due = true
            case "false": filter.due = false
            default: errors.append(.init(path: "query.due", message: "must be true or false"))
            }
        }
        if !errors.isEmpty {
            throw RouteInput.badQuery(errors)
        }
    }
}

/// List cursors: the last plate of a page, base64url-encoded behind a version prefix, so clients treat them as
/// opaque and a later format can be told apart.
enum Cursor {
    /// base64url without padding (RFC 4648, section 5), written directly: Foundation's base64 followed by three
    /// `replacingOccurrences` calls was 4 % of a list request's CPU time.
    static func encode(_ plate: String) -> String {
        let bytes = Array("p1:".utf8) + Array(plate.utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = bytes[index]
            let second = remaining > 1 ? bytes[index + 1] : 0
            let third = remaining > 2 ? bytes[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            if remaining > 1 { output.append(alphabet[Int((second & 0x0F) << 2 | third >> 6)]) }
            if remaining > 2 { output.append(alphabet[Int(third & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The plate a cursor continues after, or `nil` when `cursor` is not of the form the daemon gives out
    /// (`cDE6` — the encoded `p1:` — followed by base64url characters, at most 128 in all). Any cursor of that form
    /// is a position in the list: bits that do not fill a byte are ignored and bytes that are not UTF-8 are
    /// replaced, as a plate only orders the list.
    static func decode(_ cursor: String) -> String? {
        let characters = Array(cursor.utf8)
        guard characters.count <= 128 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "p"), bytes[1] == UInt8(ascii: "1"),
            bytes[2] == UInt8(ascii: ":")
        else { return nil }
        return String(decoding: bytes[3...], as: UTF8.self)
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
