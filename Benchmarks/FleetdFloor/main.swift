import Foundation
import Hummingbird
import NIOCore

// The floor of fleetd's throughput benchmark: fleetd's two v2 reads written by hand for speed, on the same SQLite
// file and schema fleetd creates. Hummingbird routes straight to a handler that runs one prepared statement on a
// connection of its own thread (the raw sqlite3 C API, no pool, no Codable, no middleware) and writes each row as
// JSON straight into the response's buffer: the same bytes and the same `Content-Type`, `ETag` and `Cache-Control`
// as fleetd (`Scripts/bench-fleetd` compares them before it times anything). Vehicles are due when flagged or last
// serviced more than twelve months ago, fleetd's default.
//
// `POST /v2/vehicles` (for the write-heavy mix) takes fleetd's create body, checks the bearer token and the plate,
// and inserts the vehicle in a durable transaction of its own.
//
// Usage: fleetd-floor PORT DATABASE TOKEN

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, let port = Int(arguments[0]) else {
    print("usage: fleetd-floor PORT DATABASE TOKEN")
    exit(2)
}
let path = arguments[1]
let authorization = "Bearer " + arguments[2]
let connections = FloorConnections(path: path)
if let problem = connections.check() {
    print("fleetd-floor: cannot read \(path): \(problem)")
    exit(1)
}
let writer: FloorWriter
do {
    writer = try FloorWriter(path: path)
} catch {
    print("fleetd-floor: cannot write \(path): \(error.message)")
    exit(1)
}

let router = Router()
router.get("/v2/vehicles/:id") { _, context -> Response in
    guard let text = context.parameters.get("id"), let id = FloorID(text) else {
        return FloorResponse.problem(.notFound, "no vehicle with this ID")
    }
    return connections.current().vehicle(id)
}
router.get("/v2/vehicles") { request, _ -> Response in
    let query = request.uri.queryParameters
    var limit = 50
    if let text = query["limit"] {
        guard let value = Int(String(text)), (1...500).contains(value) else {
            return FloorResponse.problem(.badRequest, "limit must be an integer from 1 to 500")
        }
        limit = value
    }
    var after: [UInt8]?
    if let cursor = query["cursor"] {
        guard let plate = FloorCursor.plate(in: Array(cursor.utf8)) else {
            return FloorResponse.problem(.badRequest, "not a cursor")
        }
        after = plate
    }
    return connections.current().page(after: after, limit: limit)
}
router.post("/v2/vehicles") { request, _ -> Response in
    guard request.headers[.authorization] == authorization else {
        return FloorResponse.problem(.unauthorized, "a write needs the bearer token")
    }
    let body = try await request.body.collect(upTo: 64 * 1024)
    guard let input = try? JSONDecoder().decode(FloorWriter.Input.self, from: Data(body.readableBytesView)) else {
        return FloorResponse.problem(.badRequest, "not a vehicle")
    }
    return await writer.create(input)
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "floor")
)
try await app.runService()
