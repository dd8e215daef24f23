import Foundation
import ModelKit
import Testing

/// The README's quick start, line for line; `output` collects what the README shows printed.
struct ReadmeQuickStartTests {
    struct Car: Model {
        var plate: String
        var modelYear: Int
        var id = ModelID<Car>()
    }

    @Test func quickStartCompilesAndPrintsWhatTheReadmeShows() throws {
        var output: [String] = []
        func print(_ item: Any) { output.append("\(item)") }

        // --- README quick start begins ---
        let json = try JSONValue(parsing: #"{"plate": "B-AB 123", "modelYear": 2021, "mileage": 1.0}"#)
        print(json.formatted())  // {"plate":"B-AB 123","modelYear":2021,"mileage":1.0}
        print(json["modelYear"]?.intValue ?? 0)  // 2021

        let car = Car(plate: "B-AB 123", modelYear: 2021)
        let data = try ModelCoding.encode(car)  // {"id":"0190…","modelYear":2021,"plate":"B-AB 123"}
        print(try ModelCoding.decode(Car.self, from: data) == car)  // true

        do {
            _ = try ModelCoding.decode([Car].self, from: Data(#"[{"plate": "B-AB 123", "modelYear": "abc"}]"#.utf8))
        } catch {
            print(error)  // [0].modelYear: expected Int, found string "abc"
        }

        let accept = try AcceptHeader(parsing: "application/json;q=0.5, application/problem+json")
        print(accept.bestMatch(from: [.json, .problemJSON]) ?? .json)  // application/problem+json
        // --- README quick start ends ---

        #expect(
            output == [
                #"{"plate":"B-AB 123","modelYear":2021,"mileage":1.0}"#,
                "2021",
                "true",
                #"[0].modelYear: expected Int, found string "abc""#,
                "application/problem+json",
            ]
        )
        #expect(String(decoding: data, as: UTF8.self).hasSuffix(#"","modelYear":2021,"plate":"B-AB 123"}"#))
    }
}
