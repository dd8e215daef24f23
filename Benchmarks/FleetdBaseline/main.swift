import Foundation
import Hummingbird
import NIOCore

// The baseline of fleetd's throughput benchmark: a bare Hummingbird handler per route that answers with bytes of
// the same shape and size as fleetd's (a v2 vehicle, a page of 50), encoded once at start-up, with no store, no
// service, no middleware. `Scripts/bench-fleetd` runs it next to fleetd and compares the two.
//
// Usage: fleetd-baseline PORT

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8081
let vehicle =
    #"{"id":"01a203b4-37d0-70d1-af10-ca35f16aa9a3","maintenance":{"due":false,"lastServiced":"2024-01-02T03:04:05Z"},"make":"Volvo","model":"FH16","modelYear":2019,"plate":"BENCH-0001","revision":1}"#
let page =
    #"{"items":["# + Array(repeating: vehicle, count: 50).joined(separator: ",")
    + #"],"nextCursor":"cDE6QkVOQ0gtMDA1MA"}"#
let vehicleBytes = ByteBuffer(string: vehicle)
let pageBytes = ByteBuffer(string: page)

let router = Router()
router.get("/v2/vehicles/:id") { _, _ in
    Response(
        status: .ok,
        headers: [.contentType: "application/json", .eTag: "\"1\""],
        body: .init(byteBuffer: vehicleBytes)
    )
}
router.get("/v2/vehicles") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: pageBytes))
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "baseline")
)
try await app.runService()
