import Foundation
import ModelKit
import Testing

/// v1 knows plate and model year only; v2 adds the make and mileage, renamed `odometer`.
enum V1 {
    struct Vehicle: VersionedRepresentation {
        static let version = APIVersion.v1
        var id: ModelID<ModelKitTests.Vehicle>
        var plate: String
        var modelYear: Int

        /// Drops make, registration date, owner, nickname and mileage.
        init(canonical: ModelKitTests.Vehicle) {
            id = canonical.id
            plate = canonical.plate
            modelYear = canonical.modelYear
        }

        /// Needs the existing vehicle for every field v1 lacks.
        func canonical(updating existing: ModelKitTests.Vehicle?) throws -> ModelKitTests.Vehicle {
            guard var vehicle = existing else {
                throw VersioningError(.missingCanonical, detail: "v1 lacks make, registeredAt, owner and mileage")
            }
            vehicle.plate = plate
            vehicle.modelYear = modelYear
            return vehicle
        }
    }
}

enum V2 {
    struct Vehicle: VersionedRepresentation {
        static let version = APIVersion.v2
        var id: ModelID<ModelKitTests.Vehicle>
        var plate: String
        var make: String
        var modelYear: Int
        var registeredAt: Date
        var owner: Owner
        var nickname: String?
        var odometer: Double

        init(canonical: ModelKitTests.Vehicle) {
            id = canonical.id
            plate = canonical.plate
            make = canonical.make
            modelYear = canonical.modelYear
            registeredAt = canonical.registeredAt
            owner = canonical.owner
            nickname = canonical.nickname
            odometer = canonical.mileage
        }

        func canonical(updating existing: ModelKitTests.Vehicle?) throws -> ModelKitTests.Vehicle {
            guard odometer >= 0 else {
                throw VersioningError(.conversionFailed, detail: "odometer must not be negative")
            }
            return ModelKitTests.Vehicle(
                id: id,
                plate: plate,
                make: make,
                modelYear: modelYear,
                registeredAt: registeredAt,
                owner: owner,
                nickname: nickname,
                mileage: odometer
            )
        }
    }
}

struct VersionedModelTests {
    let vehicles = VersionedModel<Vehicle>(V1.Vehicle.self, V2.Vehicle.self)

    @Test func versionsAreListedOldestFirst() {
        #expect(vehicles.versions == [.v1, .v2])
        #expect(vehicles.latest == .v2)
        #expect(vehicles.supports(.v1))
        #expect(!vehicles.supports(.v3))
    }

    @Test func encodingAsV1DropsTheFieldsV1Lacks() throws {
        let data = try vehicles.encode(Sample.vehicle, as: .v1)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"id":"0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f","modelYear":2021,"plate":"B-AB 123"}"#
        )
    }

    @Test func decodingV1WithoutTheExistingValueFails() throws {
        let data = try vehicles.encode(Sample.vehicle, as: .v1)
        #expect {
            _ = try vehicles.decode(data, as: .v1)
        } throws: { error in
            (error as? VersioningError)?.code == .missingCanonical
        }
    }

    @Test func decodingV1WithTheExistingValueKeepsTheFieldsV1Lacks() throws {
        let body = Data(#"{"id":"0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f","modelYear":2022,"plate":"B-XY 9"}"#.utf8)
        let updated = try vehicles.decode(body, as: .v1, updating: Sample.vehicle)
        var expected = Sample.vehicle
        expected.plate = "B-XY 9"
        expected.modelYear = 2022
        #expect(updated == expected)
    }

    @Test func v2RoundTripsTheWholeModel() throws {
        let data = try vehicles.encode(Sample.vehicle, as: .v2)
        #expect(try vehicles.jsonValue(Sample.vehicle, as: .v2)["odometer"] == .double(12_345.5))
        #expect(try vehicles.decode(data, as: .v2) == Sample.vehicle)
        #expect(try V2.Vehicle(canonical: Sample.vehicle).canonical() == Sample.vehicle)
    }

    @Test func conversionFailuresSurface() throws {
        var broken = V2.Vehicle(canonical: Sample.vehicle)
        broken.odometer = -1
        let data = try ModelCoding.encode(broken)
        #expect {
            _ = try vehicles.decode(data, as: .v2)
        } throws: { error in
            (error as? VersioningError)?.code == .conversionFailed
        }
    }

    @Test func undecodableBodiesGiveModelDecodingErrors() {
        #expect {
            _ = try vehicles.decode(Data(#"{"plate": 1}"#.utf8), as: .v1, updating: Sample.vehicle)
        } throws: { error in
            (error as? ModelDecodingError)?.code == .missingKey || (error as? ModelDecodingError)?.code == .typeMismatch
        }
    }

    @Test func unsupportedVersionsNameTheSupportedOnes() throws {
        #expect {
            _ = try vehicles.encode(Sample.vehicle, as: .v3)
        } throws: { error in
            (error as? VersioningError)?.description == "unsupported API version: v3 (supported: v1, v2)"
        }
        #expect(throws: VersioningError.self) {
            _ = try vehicles.representation(for: APIVersion(9))
        }
        #expect(try vehicles.representation(for: .v2) == V2.Vehicle.self as any VersionedRepresentation<Vehicle>.Type)
    }

    @Test(arguments: [("v1", 1), ("V2", 2), ("3", 3), ("v10", 10)])
    func apiVersionsParse(text: String, number: Int) throws {
        #expect(try APIVersion(parsing: text).number == number)
        #expect(try APIVersion(parsing: text).description == "v\(number)")
    }

    @Test(arguments: ["", "v", "v0", "x1", "v-1", "v1.0", "v99999999999"])
    func malformedVersionsThrow(text: String) {
        #expect {
            _ = try APIVersion(parsing: text)
        } throws: { error in
            (error as? VersioningError)?.code == .invalidVersion
        }
    }

    @Test func apiVersionsCompareNumericallyAndEncodeAsStrings() throws {
        #expect(APIVersion(2) < APIVersion(10))
        #expect(String(decoding: try ModelCoding.encode([APIVersion.v2]), as: UTF8.self) == #"["v2"]"#)
        #expect(try ModelCoding.decode(APIVersion.self, from: Data(#""v3""#.utf8)) == .v3)
    }
}
