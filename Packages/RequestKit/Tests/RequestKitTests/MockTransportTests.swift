import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

struct MockTransportTests {
    private let environment: ServiceEnvironment

    init() throws {
        environment = try ServiceEnvironment(name: "mock", baseURL: "https://api.example.com/")
    }

    @Test func routesAnswerByMethodAndPathWithWildcards() async throws {
        let mock = MockTransport()
        mock.on(.get, "v2/vehicles/*") { request in
            .json(#"{"plate": "\#(request.path.split(separator: "/").last ?? "")", "modelYear": 2021}"#)
        }
        mock.on(.delete, "v2/vehicles/*") { _ in .status(204) }
        let client = RequestClient(environment: environment, transport: mock)
        let vehicle = try await client.send(FleetAPI.V2.vehicle(7))
        #expect(vehicle == VehicleV2(plate: "7", modelYear: 2021))
        let removed = try await client.response(for: FleetAPI.V2.remove(7))
        #expect(removed.status == .noContent)
        #expect(mock.requests.map(\.method) == [.get, .delete])
        #expect(mock.requests.first?.headerFields[.accept] == "application/vnd.fleet.v2+json")
    }

    @Test func aBodyInMemoryIteratesAsOneChunkAndCollectsWithinItsLimit() async throws {
        let data = Data("twelve bytes".utf8)
        var chunks: [Data] = []
        for try await chunk in ClientResponse.Body(data: data) { chunks.append(chunk) }
        #expect(chunks == [data])
        var emptyChunks = 0
        for try await _ in ClientResponse.Body.empty { emptyChunks += 1 }
        #expect(emptyChunks == 0)
        #expect(try await ClientResponse.Body(data: data).collect(upTo: 12) == data)
        #expect(try await ClientResponse.Body.empty.collect(upTo: 0) == Data())
        await #expect {
            _ = try await ClientResponse.Body(data: data).collect(upTo: 11)
        } throws: { error in
            (error as? RequestKitError)?.code == .bodyTooLarge
        }
    }

    @Test func routesCanFailWithAnError() async throws {
        let mock = MockTransport()
        mock.fail(.get, "vehicles", with: RequestKitError(.transportFailed, subject: "mock", reason: "offline"))
        let client = RequestClient(environment: environment, transport: mock)
        await #expect {
            _ = try await client.get("vehicles")
        } throws: { error in
            (error as? RequestKitError)?.code == .transportFailed
        }
    }

    @Test func delayedRoutesStillAnswer() async throws {
        let mock = MockTransport()
        mock.on(.get, "slow", delay: .milliseconds(1)) { _ in .text("eventually") }
        let client = RequestClient(environment: environment, transport: mock)
        let text = try await client.get("slow").value.text
        #expect(text == "eventually")
    }

    @Test func fixtureFilesNamedAfterTheEndpointAnswerUnroutedRequests() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "mocks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"plate": "FIX 1"}"#.utf8).write(to: directory.appending(path: "vehicles.get.mock"))
        let mock = MockTransport(fixturesDirectory: directory)
        let client = RequestClient(environment: environment, transport: mock)
        let vehicle = try await client.send(FleetAPI.V1.vehicle(1))
        #expect(vehicle == VehicleV1(plate: "FIX 1"))
    }

    @Test func unmatchedRequestsGetA404NamingThem() async throws {
        let client = RequestClient(environment: environment, transport: MockTransport())
        await #expect {
            _ = try await client.get("nowhere")
        } throws: { error in
            (error as? RequestKitError)?.status == 404
        }
    }

    @Test func aStalledMockBodyIsStoppedByCancellation() async throws {
        let mock = MockTransport()
        mock.on(.get, "stall") { _ in TestResponse(body: .stall(prefix: Data("x".utf8), declaredLength: 10)) }
        var configuration = RequestClient.Configuration()
        configuration.timeouts = Timeouts(overall: .milliseconds(50))
        let client = RequestClient(environment: environment, transport: mock, configuration: configuration)
        await #expect {
            _ = try await client.get("stall")
        } throws: { error in
            (error as? RequestKitError)?.code == .timedOut
        }
    }
}
