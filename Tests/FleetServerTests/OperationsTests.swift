import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import InMemoryLogging
import Logging
import ModelKit
import NIOCore
import Testing

/// `/health`, `/metrics`, the OpenAPI documents and requests no route matches.
@Suite("Health, metrics and unknown routes")
struct OperationsTests {
    @Test("/health says the daemon and its store are ready")
    func health() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(.get, "/health", token: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let json = try response.jsonValue()
            #expect(json["status"]?.stringValue == "ok")
            #expect(json["store"]?.stringValue == "ready")
        }
    }

    @Test("/metrics counts requests by method, route template and status")
    func metrics() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let vehicle = try await client.createV2(plate: "MET-1")
            let id = vehicle.id.uuidString.lowercased()
            #expect(try await client.send(.get, "/v2/vehicles/\(id)", token: nil).status == .ok)
            #expect(try await client.send(.get, "/v2/vehicles/\(id)", token: nil).status == .ok)
            let missing = UUID().uuidString.lowercased()
            #expect(try await client.send(.get, "/v2/vehicles/\(missing)", token: nil).status == .notFound)
            #expect(try await client.send(.get, "/v1/vehicles?x=1", token: nil).status == .badRequest)
            #expect(try await client.send(.post, "/v2/vehicles", json: "{}", token: nil).status == .unauthorized)
            #expect(try await client.send(.get, "/no/such/route", token: nil).status == .notFound)

            let response = try await client.send(.get, "/metrics", token: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = response.text
            let lines = text.split(separator: "\n").map(String.init)
            func count(method: String, route: String, status: Int) -> String? {
                let prefix = "fleetd_http_requests_total{"
                return lines.first {
                    $0.hasPrefix(prefix) && $0.contains(#"method="\#(method)""#)
                        && $0.contains(#"route="\#(route)""#) && $0.contains(#"status="\#(status)""#)
                }?.split(separator: " ").last.map(String.init)
            }
            #expect(text.contains("# TYPE fleetd_http_requests_total counter"))
            #expect(count(method: "GET", route: "/v2/vehicles/{id}", status: 200) == "2", "\(text)")
            #expect(count(method: "GET", route: "/v2/vehicles/{id}", status: 404) == "1", "\(text)")
            #expect(count(method: "POST", route: "/v2/vehicles", status: 201) == "1", "\(text)")
            #expect(count(method: "POST", route: "/v2/vehicles", status: 401) == "1", "\(text)")
            #expect(count(method: "GET", route: "/v1/vehicles", status: 400) == "1", "\(text)")
            // Requests no route matches are labelled "unmatched", never with their raw path.
            #expect(count(method: "GET", route: "unmatched", status: 404) == "1", "\(text)")
            #expect(!text.contains("NotFound"))
            // Every metric family says what it counts.
            for line in lines where line.hasPrefix("# TYPE ") {
                let name = line.split(separator: " ")[2]
                #expect(lines.contains { $0.hasPrefix("# HELP \(name) ") }, "no HELP for \(name)")
            }
            #expect(!text.contains("/no/such/route"))
            #expect(text.contains("fleetd_http_request_duration_seconds"))
            // The read cache: one hit (the second GET of the vehicle) and misses for the rest, published on scrape.
            #expect(lines.contains(#"fleetd_read_cache_requests_total{result="hit"} 1"#), "\(text)")
            #expect(lines.contains { $0.hasPrefix(#"fleetd_read_cache_requests_total{result="miss"} "#) })
            #expect(lines.contains("fleetd_read_cache_entries 1.0"), "\(text)")
            #expect(lines.contains { $0.hasPrefix("fleetd_read_cache_bytes ") })
            // Raw IDs never become labels.
            #expect(!text.contains(id))
            #expect(!text.contains(missing))
        }
    }

    @Test("GET / names the OpenAPI documents, /health and /metrics")
    func theRootPointsToTheDocuments() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(.get, "/", token: nil)
            #expect(response.status == .ok)
            let index = try response.jsonValue()
            #expect(index["openapi"]?["v1"] == "/openapi/v1.json")
            #expect(index["openapi"]?["v2"] == "/openapi/v2.json")
            #expect(index["health"] == "/health")
        }
    }

    @Test("the access log has one debug entry per request: method, route template, status, duration, request ID")
    func accessLog() async throws {
        let logs = InMemoryLogHandler()
        let fixture = try ServerFixture(logs: logs, logLevel: .debug)
        try await fixture.withServer { client in
            let vehicle = try await client.createV2(plate: "LOG-1")
            _ = try await client.send(.get, "/v2/vehicles/\(vehicle.id.uuidString)", token: nil)
            _ = try await client.send(.get, "/no/such/route", token: nil)
        }
        let entries = logs.entries.filter { $0.message == "request" }
        #expect(entries.count == 3, "\(logs.entries.map(\.message))")
        let routes = entries.compactMap { $0.metadata["http.route"].map { "\($0)" } }
        #expect(routes == ["/v2/vehicles", "/v2/vehicles/{id}", "unmatched"])
        for entry in entries {
            #expect(entry.level == .debug)
            #expect(entry.metadata["http.method"] != nil && entry.metadata["http.status"] != nil)
            #expect(entry.metadata["http.duration_ms"] != nil)
            #expect(entry.metadata["http.request_id"].map { "\($0)" } != "-")
        }
        #expect(!logs.entries.contains { "\($0.message)".hasPrefix("Server started") })
    }

    @Test("unknown routes are 404 problems", arguments: ["/nope", "/v3/vehicles", "/v2/trucks", "/v2/vehicles/a/b"])
    func unknownRoute(path: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(.get, path, token: nil)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == Problem.mediaType)
            let problem = try response.problem()
            #expect(problem.type == ProblemType.notFound)
            #expect(problem.status == 404)
        }
    }

    @Test("an undocumented method on a known path is a 4xx problem")
    func unknownMethod() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            let response = try await client.send(.put, "/v2/vehicles", json: "{}")
            #expect((400..<500).contains(response.status.code), "\(response.status)")
            #expect(response.headers[.contentType] == Problem.mediaType)
            #expect(try await client.listAllV2().vehicles.isEmpty)
        }
    }

    @Test("the OpenAPI documents are served as JSON, byte for byte")
    func openAPIDocuments() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            for version in [1, 2] {
                let response = try await client.send(.get, "/openapi/v\(version).json", token: nil)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(
                    Array(response.body.readableBytesView)
                        == OpenAPIDocuments.document(version: version).map(Array.init)
                )
            }
        }
    }
}
