import Foundation
import ModelKit
import Testing

struct ModelDecodingErrorTests {
    private func fleetJSON(patching patch: (inout JSONValue) -> Void) throws -> Data {
        var vehicles: [JSONValue] = []
        for _ in 0..<5 {
            vehicles.append(try ModelCoding.decode(JSONValue.self, from: ModelCoding.encode(Sample.vehicle)))
        }
        var fleet: JSONValue = ["name": "North", "vehicles": .array(vehicles)]
        patch(&fleet)
        return fleet.jsonData()
    }

    private func decodingError(_ data: Data) -> ModelDecodingError? {
        do {
            _ = try ModelCoding.decode(Fleet.self, from: data)
            return nil
        } catch {
            return error as? ModelDecodingError
        }
    }

    private func patchVehicle(_ index: Int, _ key: String, _ value: JSONValue?) -> (inout JSONValue) -> Void {
        { fleet in
            guard case .array(var vehicles)? = fleet["vehicles"], case .object(var vehicle) = vehicles[index] else {
                return
            }
            vehicle[key] = value
            vehicles[index] = .object(vehicle)
            fleet["vehicles"] = .array(vehicles)
        }
    }

    @Test func typeMismatchNamesPathExpectedTypeAndFoundValue() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(3, "modelYear", "abc"))))
        #expect(error.code == .typeMismatch)
        #expect(error.path == "vehicles[3].modelYear")
        #expect(error.description == #"vehicles[3].modelYear: expected Int, found string "abc""#)
    }

    @Test func missingKeyNamesThePath() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(0, "plate", nil))))
        #expect(error.code == .missingKey)
        #expect(error.description == "vehicles[0].plate: missing required key")
    }

    @Test func nullWhereAValueIsRequiredIsItsOwnKind() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(1, "make", .null))))
        #expect(error.code == .nullValue)
        #expect(error.description == "vehicles[1].make: expected String, found null")
    }

    @Test func nullForAnOptionalIsFine() throws {
        let data = try fleetJSON(patching: patchVehicle(1, "nickname", .null))
        #expect(decodingError(data) == nil)
    }

    @Test func corruptDateIsInvalidData() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(2, "registeredAt", "yesterday"))))
        #expect(error.code == .invalidData)
        #expect(
            error.description
                == #"vehicles[2].registeredAt: expected an ISO 8601 date such as 2024-03-01T08:15:30.250Z, found string "yesterday""#
        )
    }

    @Test func corruptIdentifierIsInvalidData() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(4, "id", "42"))))
        #expect(error.code == .invalidData)
        #expect(error.description == #"vehicles[4].id: expected a UUID string, found string "42""#)
    }

    @Test func nestedObjectsAndArraysShowUpInThePath() throws {
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(0, "owner", ["name": [1, 2]]))))
        #expect(error.description == "vehicles[0].owner.name: expected String, found array of 2 elements")
    }

    @Test func wrongTopLevelTypeHasNoPath() {
        #expect(decodingError(Data("[1]".utf8))?.description == "expected object, found array of 1 element")
    }

    @Test func foundStringsAreShortened() throws {
        let long = String(repeating: "x", count: 500)
        let error = try #require(decodingError(fleetJSON(patching: patchVehicle(3, "modelYear", .string(long)))))
        #expect(error.description.count < 120)
        #expect(error.description.hasSuffix("…\""))
    }

    @Test func malformedJSONCarriesThePosition() throws {
        let error = try #require(decodingError(Data("{\n  \"name\": \"North\",\n  \"vehicles\": [,]\n}".utf8)))
        #expect(error.code == .malformedJSON)
        #expect(error.jsonError?.line == 3)
        #expect(error.jsonError?.column == 16)
        #expect(error.description == "malformed JSON at line 3, column 16 (byte 36): expected a value, found ','")
    }

    @Test func malformedJSONValueInputIsReportedTheSameWay() {
        #expect {
            _ = try ModelCoding.decode(JSONValue.self, from: Data("[1,".utf8))
        } throws: { error in
            (error as? ModelDecodingError)?.code == .malformedJSON
        }
    }

    @Test func errorsOfTheModelsOwnInitializerPassThrough() {
        struct Picky: Decodable {
            struct Refused: Error {}
            init(from decoder: any Decoder) throws { throw Refused() }
        }
        #expect(throws: Picky.Refused.self) {
            _ = try ModelCoding.decode(Picky.self, from: Data("{}".utf8))
        }
    }

    @Test func keysThatAreNotIdentifiersAreQuotedInThePath() {
        #expect {
            _ = try ModelCoding.decode([String: Int].self, from: Data(#"{"a b": "x"}"#.utf8))
        } throws: { error in
            (error as? ModelDecodingError)?.description == #"["a b"]: expected Int, found string "x""#
        }
    }

    @Test func aNumberNoIntegerCanHoldIsReportedAtItsPath() throws {
        struct Year: Decodable { var year: Int }
        struct Fleet: Decodable { var name: String; var items: [Year] }
        for (json, path) in [
            (#"{"year": 2020.5}"#, "year"),
            (#"{"name": "x", "items": [{"year": 1}, {"year": 99999999999999999999999}]}"#, "items[1].year"),
        ] {
            let error = #expect(throws: ModelDecodingError.self) {
                if path == "year" {
                    _ = try ModelCoding.decode(Year.self, from: Data(json.utf8))
                } else {
                    _ = try ModelCoding.decode(Fleet.self, from: Data(json.utf8))
                }
            }
            #expect(error?.path == path)
        }
    }
}
