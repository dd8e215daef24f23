import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The test PostgreSQL server's URL, if there is one.
private let sharedPostgresURL = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

/// Two daemons on one PostgreSQL database (`STOREKITLITE_POSTGRES_URL`, which `Scripts/test-all` provides; the
/// suite is skipped with the reason without it), each with its own schema-sharing store, as two nodes behind a
/// load balancer: a write on one is read on the other, revisions guard updates across them, and a node's read
/// cache is retired by the other node's writes.
@Suite(
    .enabled(
        if: sharedPostgresURL != nil,
        "STOREKITLITE_POSTGRES_URL is not set; Scripts/postgres run -- swift test starts a throwaway server"
    )
)
struct SharedPostgresTests {
    static let url = sharedPostgresURL

    /// A database URL naming a fresh schema of the test server.
    static func freshDatabase() throws -> String {
        let url = try #require(url)
        let schema = "fleet_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }

    static func node(database: String, readCacheBytes: Int = 0) throws -> ServerFixture {
        try ServerFixture(readCacheBytes: readCacheBytes) { $0.database = database }
    }

    @Test func aWriteOnOneNodeIsReadOnTheOtherAndRevisionsHoldAcrossThem() async throws {
        let database = try Self.freshDatabase()
        let first = try Self.node(database: database)
        let second = try Self.node(database: database)
        try await first.withServer { a in
            try await second.withServer { b in
                let health = try await b.send(.get, "/health", token: nil)
                #expect(health.status == .ok)
                #expect(try health.string("database") == "postgresql")

                let created = try await a.send(
                    .post,
                    "/v2/vehicles",
                    json: #"{"plate": "PG-1", "make": "Scania", "model": "R", "modelYear": 2021}"#
                )
                #expect(created.status == .created)
                let id = try #require(try created.string("id"))
                let read = try await b.send(.get, "/v2/vehicles/\(id)", token: nil)
                #expect(read.status == .ok)
                #expect(try read.string("plate") == "PG-1")
                #expect(read.headers[.eTag] == "\"1\"")

                // Updated on A; B's copy of revision 1 is stale.
                let updated = try await a.send(
                    .patch,
                    "/v2/vehicles/\(id)",
                    json: #"{"model": "R 450"}"#,
                    headers: [.ifMatch: "\"1\""]
                )
                #expect(updated.status == .ok)
                let stale = try await b.send(
                    .patch,
                    "/v2/vehicles/\(id)",
                    json: #"{"model": "R 500"}"#,
                    headers: [.ifMatch: "\"1\""]
                )
                #expect(stale.status == .preconditionFailed)
                // A plate taken on A is refused on B too.
                let duplicate = try await b.send(
                    .post,
                    "/v2/vehicles",
                    json: #"{"plate": "PG-1", "make": "MAN", "model": "TGX", "modelYear": 2022}"#
                )
                #expect(duplicate.status == .conflict)

                // Deleted on B, gone on A.
                let deleted = try await b.send(.delete, "/v2/vehicles/\(id)", headers: [.ifMatch: "\"2\""])
                #expect(deleted.status == .noContent)
                let gone = try await a.send(.get, "/v2/vehicles/\(id)", token: nil)
                #expect(gone.status == .notFound)
            }
        }
    }

    /// With its read cache on, a node keeps answering a vehicle from memory until another node's write reaches it
    /// through the change feed: the answer changes within a bounded time, and the node reports its feed as
    /// following.
    @Test func anotherNodesWriteRetiresTheReadCache() async throws {
        let database = try Self.freshDatabase()
        let writer = try Self.node(database: database)
        let cached = try Self.node(database: database, readCacheBytes: 1 << 20)
        try await writer.withServer { a in
            try await cached.withServer { b in
                let created = try await a.send(
                    .post,
                    "/v2/vehicles",
                    json: #"{"plate": "PG-2", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
                )
                let id = try #require(try created.string("id"))
                // Wait for the feed to connect, then fill B's cache.
                let clock = ContinuousClock()
                var deadline = clock.now + .seconds(10)
                while clock.now < deadline,
                    try await b.send(.get, "/health", token: nil).string("changeFeed") != "following"
                {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(try await b.send(.get, "/health", token: nil).string("changeFeed") == "following")
                let metrics = try await b.send(.get, "/metrics", token: nil).text
                #expect(metrics.contains("fleetd_change_feed_connected 1"), "\(metrics)")
                // The listener holds one pooled connection; every read and write leased one.
                #expect(metrics.contains("fleetd_db_pool_connections_in_use 1"), "\(metrics)")
                #expect(metrics.contains("fleetd_db_pool_waiting 0"), "\(metrics)")
                #expect(metrics.contains("fleetd_db_pool_connections_max "), "\(metrics)")
                #expect(metrics.contains("fleetd_db_pool_wait_seconds_total "), "\(metrics)")
                let leases = metrics.split(separator: "\n").first { $0.hasPrefix("fleetd_db_pool_leases_total ") }
                #expect(leases.flatMap { Int($0.split(separator: " ")[1]) } ?? 0 > 1, "\(metrics)")
                for _ in 0..<3 {
                    #expect(try await b.send(.get, "/v2/vehicles/\(id)", token: nil).string("model") == "FH")
                }
                let start = clock.now
                let patched = try await a.send(
                    .patch,
                    "/v2/vehicles/\(id)",
                    json: #"{"model": "FH16"}"#,
                    headers: [.ifMatch: "\"1\""]
                )
                #expect(patched.status == .ok)
                deadline = clock.now + .seconds(10)
                var model: String?
                repeat {
                    model = try await b.send(.get, "/v2/vehicles/\(id)", token: nil).string("model")
                } while model != "FH16" && clock.now < deadline
                #expect(model == "FH16")
                // Generous: the feed is woken by NOTIFY; what this bounds is "not never", not a speed.
                #expect(clock.now - start < .seconds(10))
            }
        }
    }
}
