import FleetClient
import FleetModels
import FleetTestSupport
import Foundation
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// FleetClient against a real HTTP server on loopback that speaks fleetd's contract.
struct FleetClientTests {
    /// Runs `body` with a client for `server`, with or without the token, and shuts its transport down.
    func withClient<Result>(
        _ server: TestServer,
        token: String? = FakeFleetd.token,
        _ body: (FleetClient) async throws -> Result
    ) async throws -> Result {
        try await withClient(baseURL: server.baseURL, token: token, body)
    }

    func withClient<Result>(
        baseURL: URL,
        token: String? = FakeFleetd.token,
        _ body: (FleetClient) async throws -> Result
    ) async throws -> Result {
        var transportSettings = AsyncHTTPClientTransport.Configuration()
        transportSettings.retriesConnectionEstablishment = false
        return try await AsyncHTTPClientTransport.withTransport(configuration: transportSettings) { transport in
            var settings = RequestClient.Configuration()
            settings.middleware = [FleetClient.authorizationDecorator(token: token)]
            let environment = try ServiceEnvironment(name: "test", baseURL: baseURL)
            let client = RequestClient(environment: environment, transport: transport, configuration: settings)
            return try await body(FleetClient(requestClient: client))
        }
    }

    @Test func aVehicleCreatedInV2ReadsBackInV1AndV2WithTheBearerToken() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let created = try await client.v2.create(
                    V2.VehicleInput(plate: "AB-123", make: "Volvo", model: "FH16", modelYear: 2021)
                )
                #expect(created.revision == 1)
                let v2 = try await client.v2.get(created.id)
                #expect(v2 == created)
                let v1 = try await client.v1.get(created.id)
                #expect(v1.tag == "AB-123")
                #expect(v1.year == 2021)
                #expect(try await client.v1.list().map(\.id) == [created.id])
                #expect(try await client.health().status == "ok")
            }
            let post = try #require(server.receivedRequests.first { $0.method == "POST" })
            #expect(post.header("Authorization") == "Bearer \(FakeFleetd.token)")
            #expect(post.path == "/v2/vehicles")
            #expect(post.header("Content-Type") == "application/json")
        }
    }

    @Test func v1WritesCreateReplaceAndDelete() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let created = try await client.v1.create(
                    V1.VehicleInput(tag: "CD-456", make: "Scania", model: "R500", year: 2019, needsMaintenance: true)
                )
                #expect(created.needsMaintenance)
                let replaced = try await client.v1.replace(
                    created.id,
                    with: V1.VehicleInput(tag: "CD-457", make: "Scania", model: "R500", year: 2020)
                )
                #expect(replaced.tag == "CD-457")
                #expect(!replaced.needsMaintenance)
                try await client.v1.delete(created.id)
                #expect(fleetd.count == 0)
            }
        }
    }

    @Test func aWriteWithoutTheTokenIsUnauthorizedWithAHint() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server, token: nil) { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.create(
                        V2.VehicleInput(plate: "AB-1", make: "Volvo", model: "FH", modelYear: 2020)
                    )
                }
                #expect(error?.code == .unauthorized)
                #expect(error?.status == 401)
                #expect(error?.description.contains("token") == true)
            }
            #expect(server.receivedRequests.allSatisfy { $0.header("Authorization") == nil })
        }
    }

    @Test func aWrongTokenIsUnauthorized() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server, token: "wrong") { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v1.create(V1.VehicleInput(tag: "AB-1", make: "Volvo", model: "FH", year: 2020))
                }
                #expect(error?.code == .unauthorized)
            }
        }
    }

    @Test func anUnknownVehicleIsNotFound() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.get(ModelID())
                }
                #expect(error?.code == .notFound)
                #expect(error?.problem?.type == ProblemType.notFound)
            }
        }
    }

    @Test func updateSendsIfMatchWithTheRevisionItRead() async throws {
        let fleetd = FakeFleetd()
        let vehicle = fleetd.seed(sampleVehicles(1))[0]
        fleetd.touch(vehicle.id)  // revision 2
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let updated = try await client.v2.update(vehicle.id, V2.VehiclePatch(model: "FH17"))
                #expect(updated.model == "FH17")
                #expect(updated.revision == 3)
            }
            let patch = try #require(server.receivedRequests.first { $0.method == "PATCH" })
            #expect(patch.header("If-Match") == "\"2\"")
            #expect(!patch.text.contains("revision"))
        }
    }

    @Test func aStaleIfMatchIsAFailedPreconditionAndAStaleBodyRevisionAConflict() async throws {
        let fleetd = FakeFleetd()
        let vehicle = fleetd.seed(sampleVehicles(1))[0]
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let read = try await client.v2.get(vehicle.id)
                fleetd.touch(vehicle.id)  // someone else wrote meanwhile
                let stale = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.update(vehicle.id, V2.VehiclePatch(make: "MAN"), ifMatch: read.revision)
                }
                #expect(stale?.code == .preconditionFailed)
                #expect(stale?.status == 412)
                #expect(stale?.description.contains("changed since it was read") == true)

                let conflict = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.update(vehicle.id, V2.VehiclePatch(make: "MAN", revision: read.revision))
                }
                #expect(conflict?.code == .conflict)
                #expect(conflict?.status == 409)
                #expect(try await client.v2.get(vehicle.id).make == vehicle.make)
            }
        }
    }

    @Test func aDuplicatePlateIsAConflictThatSaysSo() async throws {
        let fleetd = FakeFleetd()
        fleetd.seed([Vehicle(plate: "AB-123", make: "Volvo", model: "FH", modelYear: 2020)])
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.create(
                        V2.VehicleInput(plate: "AB-123", make: "Scania", model: "R", modelYear: 2021)
                    )
                }
                #expect(error?.code == .conflict)
                #expect(error?.description.contains("plate is already taken") == true)
            }
        }
    }

    @Test func validationErrorsListTheFieldPaths() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.create(
                        V2.VehicleInput(plate: "", make: "Volvo", model: "FH", modelYear: 1700)
                    )
                }
                #expect(error?.code == .validation)
                #expect(error?.status == 422)
                #expect(Set(error?.fieldErrors.map(\.path) ?? []) == ["plate", "modelYear"])
                #expect(error?.description.contains("plate: must not be empty") == true)
                #expect(error?.description.contains("modelYear:") == true)
            }
        }
    }

    @Test func allFollowsTheCursorOverSeveralPagesWithTheFilters() async throws {
        let fleetd = FakeFleetd()
        let vehicles = fleetd.seed(sampleVehicles(11))
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let all = try await client.v2.all(VehicleQuery(limit: 3))
                #expect(all.map(\.plate) == vehicles.map(\.plate).sorted())
                let volvos = try await client.v2.all(VehicleQuery(make: "Volvo", limit: 2))
                #expect(volvos.map(\.plate) == vehicles.filter { $0.make == "Volvo" }.map(\.plate).sorted())
                let page = try await client.v2.page(VehicleQuery(modelYear: 2015, due: true))
                #expect(page.items.allSatisfy { $0.modelYear == 2015 && $0.maintenance.due })
            }
            let lists = server.receivedRequests.filter { $0.path == "/v2/vehicles" }
            // 11 vehicles in pages of 3: 4 requests; 6 Volvos in pages of 2: 3 requests (+1 filtered page).
            #expect(lists.count == 8)
            #expect(lists[1].query.contains { $0.name == "cursor" && $0.value == "AB-002" })
        }
    }

    @Test func aBadQueryIsAValidationErrorWithTheQueryPath() async throws {
        let fleetd = FakeFleetd()
        try await fleetd.serve { server in
            try await withClient(server) { client in
                let error = await #expect(throws: FleetClientError.self) {
                    _ = try await client.v2.page(VehicleQuery(limit: 9999))
                }
                #expect(error?.code == .validation)
                #expect(error?.fieldErrors.first?.path == "query.limit")
            }
        }
    }

    @Test func aClosedPortIsReportedAsTheDaemonBeingDown() async throws {
        let port = try await closedPort()
        let baseURL = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        try await withClient(baseURL: baseURL) { client in
            let error = await #expect(throws: FleetClientError.self) {
                _ = try await client.v2.page()
            }
            #expect(error?.code == .unreachable)
            #expect(error?.message == "cannot reach fleetd at http://127.0.0.1:\(port): is it running?")
        }
    }

    @Test func entityTagsParseIntoRevisions() {
        #expect(FleetAPI.V2.entityTag(3) == "\"3\"")
        #expect(FleetAPI.V2.revision(fromEntityTag: "\"3\"") == 3)
        #expect(FleetAPI.V2.revision(fromEntityTag: "W/\"12\"") == 12)
        #expect(FleetAPI.V2.revision(fromEntityTag: "\"abc\"") == nil)
    }

    @Test func anIDThatIsNotAUUIDIsInvalidInput() {
        #expect(throws: FleetClientError.self) { try FleetClient.vehicleID("not-a-uuid") }
    }
}
