import FleetModels
import HTTPTypes
import Hummingbird
import ModelKit

/// `/v1/vehicles`: the older, flat shape. v1 has no revisions, so its writes do not check them (the last writer
/// wins), and a v1 replacement keeps what v1 cannot show (the last service date).
struct V1Routes {
    let service: FleetService
    let settings: FleetHTTPSettings
    let cache: ReadResponseCache?

    func register(on group: RouterGroup<BasicRequestContext>, _ registry: OperationRegistry) {
        let service = service
        let cache = cache
        let maximumBytes = settings.maximumBodyBytes
        registry.add(group, .get, "/vehicles", prefix: "/v1") { request, _ in
            _ = try RouteInput.query(request, allowed: [])
            let key = ReadResponseCache.Key.list(version: 1, make: nil, modelYear: nil, after: nil, limit: nil)
            return try await ReadResponseCache.serve(cache, key) {
                let page = try await service.list(VehicleFilter(), after: nil, limit: nil)
                let vehicles = page.vehicles.map(V1.Vehicle.init(canonical:))
                let bytes = JSONCoding.bytes(capacity: 200 * vehicles.count + 2, vehicles.writeJSON)
                return (JSONCoding.headers(), bytes, service.dueStateChange(of: page.vehicles))
            }
        }
        registry.add(group, .post, "/vehicles", prefix: "/v1") { request, _ in
            let input = try await RequestBodies.decode(
                V1.VehicleInput.self,
                from: request,
                maximumBytes: maximumBytes
            )
            let created = try await service.create(input.makeVehicle())
            return JSONCoding.response(
                status: .created,
                headers: RouteInput.location(1, created.id),
                V1.Vehicle(canonical: created).writeJSON
            )
        }
        registry.add(group, .get, "/vehicles/:id", prefix: "/v1") { _, context in
            let id = try RouteInput.vehicleID(context)
            return try await ReadResponseCache.serve(cache, .vehicle(version: 1, id: id)) {
                let vehicle = try await service.vehicle(id)
                return (
                    JSONCoding.headers(),
                    JSONCoding.bytes(V1.Vehicle(canonical: vehicle).writeJSON),
                    service.dueStateChange(of: vehicle)
                )
            }
        }
        registry.add(group, .put, "/vehicles/:id", prefix: "/v1") { request, context in
            let id = try RouteInput.vehicleID(context)
            let input = try await RequestBodies.decode(
                V1.VehicleInput.self,
                from: request,
                maximumBytes: maximumBytes
            )
            let updated = try await service.update(id, check: .none, newPlate: input.tag) { input.applied(to: $0) }
            return JSONCoding.response(V1.Vehicle(canonical: updated).writeJSON)
        }
        registry.add(group, .delete, "/vehicles/:id", prefix: "/v1") { _, context in
            try await service.delete(try RouteInput.vehicleID(context), check: .none)
            return Response(status: .noContent)
        }
    }
}
