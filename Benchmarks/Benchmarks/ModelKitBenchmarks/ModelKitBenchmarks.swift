import Benchmark
import Foundation
import ModelKit

// Decoding a realistic payload through ModelKit's settings versus a plain JSONDecoder, and ModelKit's JSON
// parser versus JSONSerialization. Run from the repository root:
//   cd Benchmarks && swift package --disable-sandbox --scratch-path ../.build-bench-modelkit benchmark \
//       --target ModelKitBenchmarks

struct Owner: Codable, Hashable, Sendable {
    var name: String
    var email: String?
}

struct Vehicle: Model {
    var id: ModelID<Vehicle>
    var plate: String
    var make: String
    var modelYear: Int
    var registeredAt: Date
    var owner: Owner
    var nickname: String?
    var mileage: Double
}

/// The same records without the date, to compare the decoding paths without the date strategies.
struct VehicleSummary: Codable, Sendable {
    var id: ModelID<Vehicle>
    var plate: String
    var make: String
    var modelYear: Int
    var owner: Owner
    var nickname: String?
    var mileage: Double
}

/// 1,000 vehicles encoded with ModelKit's settings (ISO 8601 dates with milliseconds, sorted keys).
let payload: Data = {
    let makes = ["Volkswagen", "Škoda", "Toyota", "Renault", "Fiat", "Volvo"]
    var vehicles: [Vehicle] = []
    for index in 0..<1000 {
        let registeredAt = Date(timeIntervalSince1970: 1_600_000_000 + Double(index) * 3_600.125)
        let email: String? = index % 3 == 0 ? nil : "owner\(index)@example.com"
        let nickname: String? = index % 2 == 0 ? "Car \(index)" : nil
        let vehicle = Vehicle(
            id: ModelID(),
            plate: "B-AB \(1000 + index)",
            make: makes[index % makes.count],
            modelYear: 1990 + index % 35,
            registeredAt: registeredAt,
            owner: Owner(name: "Owner \(index)", email: email),
            nickname: nickname,
            mileage: Double(index) * 12.5 + 0.25
        )
        vehicles.append(vehicle)
    }
    do {
        return try ModelCoding.encode(vehicles)
    } catch {
        preconditionFailure("the benchmark payload must encode: \(error)")
    }
}()

/// The plain baseline: JSONDecoder with only what this payload needs, a date strategy for fractional seconds.
func makePlainDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    decoder.dateDecodingStrategy = .custom { decoder in
        let container = try decoder.singleValueContainer()
        return try style.parse(try container.decode(String.self))
    }
    return decoder
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .instructions, .mallocCountTotal, .throughput],
        maxDuration: .seconds(3),
        maxIterations: 1000
    )

    Benchmark("Decode 1000 vehicles: ModelCoding.decode") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ModelCoding.decode([Vehicle].self, from: payload))
        }
    }

    Benchmark("Decode 1000 vehicles: plain JSONDecoder") { benchmark in
        let decoder = makePlainDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode([Vehicle].self, from: payload))
        }
    }

    Benchmark("Decode 1000 summaries (no dates): ModelCoding.decode") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ModelCoding.decode([VehicleSummary].self, from: payload))
        }
    }

    Benchmark("Decode 1000 summaries (no dates): plain JSONDecoder") { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode([VehicleSummary].self, from: payload))
        }
    }

    Benchmark("Parse 1000 vehicles: JSONValue(parsing:)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONValue(parsing: payload))
        }
    }

    Benchmark("Parse 1000 vehicles: JSONSerialization.jsonObject") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: payload))
        }
    }

    Benchmark("Print 1000 vehicles: JSONValue.jsonData") { benchmark in
        let value = try JSONValue(parsing: payload)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(value.jsonData())
        }
    }

    Benchmark("Print 1000 vehicles: JSONSerialization.data") { benchmark in
        let object = try JSONSerialization.jsonObject(with: payload)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.data(withJSONObject: object))
        }
    }
}
