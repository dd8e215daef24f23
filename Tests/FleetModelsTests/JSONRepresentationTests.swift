import FleetModels
import Foundation
import ModelKit
import Testing

/// The hand-built JSON that fleetd sends is exactly what `ModelCoding.encode` writes.
@Suite("Hand-built JSON")
struct JSONRepresentationTests {
    static let strings = [
        "AB-123", "", "Škoda Octavia", "quote \" and \\ backslash", "slash / tab \t newline \n", "emoji 🚚",
        "control \u{01}\u{1F}", "日本語",
    ]

    static func vehicles() -> [Vehicle] {
        var generator = SystemRandomNumberGenerator()
        var result: [Vehicle] = []
        for (index, text) in strings.enumerated() {
            for serviced in [
                nil,
                Date(
                    timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &generator)) / 7
                ),
            ] {
                result.append(
                    Vehicle(
                        plate: text,
                        make: strings[(index + 1) % strings.count],
                        model: strings[(index + 2) % strings.count],
                        modelYear: Int.random(in: -5...3000, using: &generator),
                        maintenance: Maintenance(
                            flagged: index.isMultiple(of: 2),
                            lastServiced: serviced,
                            due: index.isMultiple(of: 3)
                        ),
                        revision: Int.random(in: 1...Int(Int32.max), using: &generator)
                    )
                )
            }
        }
        return result
    }

    @Test("v1 and v2 vehicles and pages: the same bytes as ModelCoding")
    func sameBytes() throws {
        let vehicles = Self.vehicles()
        func written(_ write: (inout JSONStreamWriter) -> Void) -> String {
            var writer = JSONStreamWriter()
            write(&writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        for vehicle in vehicles {
            let v1 = V1.Vehicle(canonical: vehicle)
            let v2 = V2.Vehicle(canonical: vehicle)
            #expect(written(v1.writeJSON) == String(decoding: try ModelCoding.encode(v1), as: UTF8.self))
            #expect(written(v2.writeJSON) == String(decoding: try ModelCoding.encode(v2), as: UTF8.self))
        }
        let list = vehicles.map(V1.Vehicle.init(canonical:))
        #expect(written(list.writeJSON) == String(decoding: try ModelCoding.encode(list), as: UTF8.self))
        #expect(written([V1.Vehicle]().writeJSON) == "[]")
        for cursor in [nil, "cDE6QUItMTIz"] {
            let page = V2.VehiclePage(items: vehicles.map(V2.Vehicle.init(canonical:)), nextCursor: cursor)
            #expect(written(page.writeJSON) == String(decoding: try ModelCoding.encode(page), as: UTF8.self))
        }
    }
}
