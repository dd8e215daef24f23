import FleetModels
import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import Testing

/// `GET /v2/vehicles`: cursor pages in plate order and filters on make, model year and due state, with the
/// maintenance policy of the daemon (here six months).
@Suite("Lists")
struct ListTests {
    /// A vehicle to create and what the list must say about it.
    struct Seed: Sendable {
        let plate: String
        let make: String
        let modelYear: Int
        /// `"old"` (serviced long ago), `"recent"`, or `nil` (never serviced).
        let serviced: String?
        let flagged: Bool

        var due: Bool { flagged || serviced == "old" }
    }

    /// Twelve vehicles, in an order that is not plate order.
    static let seeds: [Seed] = [
        Seed(plate: "P-07", make: "Volvo", modelYear: 2020, serviced: "old", flagged: false),
        Seed(plate: "P-02", make: "MAN", modelYear: 2018, serviced: "recent", flagged: false),
        Seed(plate: "P-11", make: "Scania", modelYear: 2020, serviced: nil, flagged: false),
        Seed(plate: "P-01", make: "Volvo", modelYear: 2018, serviced: "recent", flagged: true),
        Seed(plate: "P-12", make: "Volvo", modelYear: 2020, serviced: "recent", flagged: false),
        Seed(plate: "P-05", make: "MAN", modelYear: 2020, serviced: "old", flagged: true),
        Seed(plate: "P-09", make: "Volvo", modelYear: 2019, serviced: nil, flagged: true),
        Seed(plate: "P-03", make: "Scania", modelYear: 2018, serviced: "old", flagged: false),
        Seed(plate: "P-10", make: "MAN", modelYear: 2019, serviced: "recent", flagged: false),
        Seed(plate: "P-04", make: "Volvo", modelYear: 2020, serviced: nil, flagged: false),
        Seed(plate: "P-08", make: "Scania", modelYear: 2019, serviced: "old", flagged: false),
        Seed(plate: "P-06", make: "Volvo", modelYear: 2018, serviced: "old", flagged: false),
    ]

    static func seed(_ client: any TestClientProtocol) async throws {
        let formatter = ISO8601DateFormatter()
        // "Recent" is a month ago, well inside six months; "old" is years before any plausible clock.
        let recent = formatter.string(from: Date().addingTimeInterval(-30 * 86_400))
        for seed in seeds {
            var maintenance = [#""due": \#(seed.flagged)"#]
            switch seed.serviced {
            case "old": maintenance.append(#""lastServiced": "2001-02-03T04:05:06Z""#)
            case "recent": maintenance.append(#""lastServiced": "\#(recent)""#)
            default: break
            }
            _ = try await client.createV2(
                plate: seed.plate,
                make: seed.make,
                modelYear: seed.modelYear,
                maintenance: "{" + maintenance.joined(separator: ", ") + "}"
            )
        }
    }

    static func plates(where include: (Seed) -> Bool) -> [String] {
        seeds.filter(include).map(\.plate).sorted()
    }

    @Test("pages of five hold every vehicle exactly once, in plate order, and the last page has no cursor")
    func pagination() async throws {
        let fixture = try ServerFixture(maintenanceIntervalMonths: 6)
        try await fixture.withServer { client in
            try await Self.seed(client)
            let all = Self.plates { _ in true }

            var pages: [V2.VehiclePage] = []
            var cursor: String?
            repeat {
                let uri = "/v2/vehicles?limit=5" + (cursor.map { "&cursor=\($0)" } ?? "")
                let response = try await client.send(.get, uri, token: nil)
                try #require(response.status == .ok, "\(response.text)")
                #expect(response.headers[.contentType] == "application/json")
                let page = try response.decode(V2.VehiclePage.self)
                pages.append(page)
                cursor = page.nextCursor
                try #require(pages.count <= 4)
            } while cursor != nil
            #expect(pages.map(\.items.count) == [5, 5, 2])
            #expect(pages.dropLast().allSatisfy { $0.nextCursor != nil })
            #expect(pages.last?.nextCursor == nil)
            let plates = pages.flatMap(\.items).map(\.plate)
            #expect(plates == all)
            #expect(Set(plates).count == 12)

            // A page size that divides the count ends without an empty page.
            let sixes = try await client.listAllV2("limit=6")
            #expect(sixes.pages == 2)
            #expect(sixes.vehicles.map(\.plate) == all)
            // The last page has no nextCursor member at all.
            let one = try await client.send(.get, "/v2/vehicles?limit=12", token: nil)
            #expect(try one.decode(V2.VehiclePage.self).nextCursor == nil)
            #expect(try one.jsonValue()["nextCursor"] == nil)
            // Without a limit the default page size (50) holds them all.
            let unlimited = try await client.send(.get, "/v2/vehicles", token: nil).decode(V2.VehiclePage.self)
            #expect(unlimited.items.map(\.plate) == all)
            #expect(unlimited.nextCursor == nil)
            // v1 lists everything, in the same order.
            let v1 = try await client.send(.get, "/v1/vehicles", token: nil).decode([V1.Vehicle].self)
            #expect(v1.map(\.tag) == all)
        }
    }

    @Test("a cursor stays valid when vehicles before it are deleted and later ones are added")
    func cursorAcrossWrites() async throws {
        let fixture = try ServerFixture()
        try await fixture.withServer { client in
            for plate in ["C-1", "C-2", "C-3", "C-4"] { _ = try await client.createV2(plate: plate) }
            let first = try await client.send(.get, "/v2/vehicles?limit=2", token: nil).decode(V2.VehiclePage.self)
            #expect(first.items.map(\.plate) == ["C-1", "C-2"])
            let cursor = try #require(first.nextCursor)
            let firstID = try #require(first.items.first?.id.uuidString.lowercased())
            #expect(try await client.send(.delete, "/v2/vehicles/\(firstID)").status == .noContent)
            _ = try await client.createV2(plate: "C-5")
            let second = try await client.send(.get, "/v2/vehicles?limit=2&cursor=\(cursor)", token: nil)
            let page = try second.decode(V2.VehiclePage.self)
            #expect(page.items.map(\.plate) == ["C-3", "C-4"])
            let last = try #require(page.nextCursor)
            let third = try await client.send(.get, "/v2/vehicles?limit=2&cursor=\(last)", token: nil)
                .decode(V2.VehiclePage.self)
            #expect(third.items.map(\.plate) == ["C-5"])
            #expect(third.nextCursor == nil)
        }
    }

    /// A filter query and the plates it must list.
    struct FilterCase: Sendable {
        let query: String
        let expected: [String]

        init(_ query: String, _ expected: [String]) {
            self.query = query
            self.expected = expected
        }
    }

    static let filterCases: [FilterCase] = [
        FilterCase("make=Volvo", plates { $0.make == "Volvo" }),
        FilterCase("make=MAN", plates { $0.make == "MAN" }),
        FilterCase("make=volvo", []),
        FilterCase("make=Tesla", []),
        FilterCase("modelYear=2020", plates { $0.modelYear == 2020 }),
        FilterCase("modelYear=1999", []),
        FilterCase("due=true", plates { $0.due }),
        FilterCase("due=false", plates { !$0.due }),
        FilterCase("make=Volvo&due=true", plates { $0.make == "Volvo" && $0.due }),
        FilterCase("make=Volvo&due=false", plates { $0.make == "Volvo" && !$0.due }),
        FilterCase("modelYear=2018&due=true", plates { $0.modelYear == 2018 && $0.due }),
        FilterCase(
            "make=Volvo&modelYear=2020&due=false",
            plates { $0.make == "Volvo" && $0.modelYear == 2020 && !$0.due }
        ),
    ]

    @Test("filters on make, model year and due state, alone and combined, with pagination")
    func filters() async throws {
        let fixture = try ServerFixture(maintenanceIntervalMonths: 6)
        try await fixture.withServer { client in
            try await Self.seed(client)

            // The due state follows the policy: flagged, or serviced more than six months ago.
            let everything = try await client.listAllV2()
            for vehicle in everything.vehicles {
                let seed = try #require(Self.seeds.first { $0.plate == vehicle.plate })
                #expect(vehicle.maintenance.due == seed.due, "\(vehicle.plate)")
            }

            #expect(Self.plates { $0.due }.count == 7, "the seeds cover both states")
            for filter in Self.filterCases {
                let query = filter.query
                let expected = filter.expected
                let whole = try await client.listAllV2(query)
                #expect(whole.vehicles.map(\.plate) == expected, "\(query)")
                #expect(whole.pages == 1, "\(query)")
                for limit in [1, 2, 3] {
                    let paged = try await client.listAllV2("\(query)&limit=\(limit)")
                    #expect(paged.vehicles.map(\.plate) == expected, "\(query)&limit=\(limit)")
                    #expect(
                        paged.pages == max(1, (expected.count + limit - 1) / limit),
                        "\(query)&limit=\(limit): \(paged.pages) pages"
                    )
                }
            }
        }
    }

    @Test("a longer interval makes fewer vehicles due")
    func policyInterval() async throws {
        let fixture = try ServerFixture(maintenanceIntervalMonths: 600)
        try await fixture.withServer { client in
            try await Self.seed(client)
            let due = try await client.listAllV2("due=true").vehicles.map(\.plate)
            #expect(due == Self.plates { $0.flagged })
        }
    }
}
