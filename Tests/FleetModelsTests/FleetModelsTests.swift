import FleetModels
import Foundation
import ModelKit
import Testing

@Suite("Fleet models")
struct FleetModelsTests {
    static let id = ModelID<Vehicle>(uuid: UUID(uuid: (0x01, 0x92, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 1)))
    static let serviced = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z

    static var vehicle: Vehicle {
        Vehicle(
            id: id,
            plate: "AB-123",
            make: "Volvo",
            model: "FH16",
            modelYear: 2019,
            maintenance: Maintenance(flagged: false, lastServiced: serviced, due: true),
            revision: 4
        )
    }

    @Test("v1 JSON is frozen: these exact bytes")
    func v1Pinned() throws {
        let data = try ModelCoding.encode(V1.Vehicle(canonical: Self.vehicle))
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"id":"01920000-0000-7000-8000-000000000001","make":"Volvo","model":"FH16","needsMaintenance":true,"tag":"AB-123","year":2019}"#
        )
    }

    @Test("v2 JSON carries every field, with maintenance nested")
    func v2Shape() throws {
        let data = try ModelCoding.encode(V2.Vehicle(canonical: Self.vehicle))
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"id":"01920000-0000-7000-8000-000000000001","maintenance":{"due":true,"lastServiced":"2023-11-14T22:13:20Z"},"make":"Volvo","model":"FH16","modelYear":2019,"plate":"AB-123","revision":4}"#
        )
    }

    @Test("v2 round-trips the canonical vehicle losslessly")
    func v2RoundTrip() throws {
        let vehicle = Self.vehicle
        let data = try Vehicle.versions.encode(vehicle, as: .v2)
        let back = try Vehicle.versions.decode(data, as: .v2, updating: vehicle)
        #expect(back == vehicle)
    }

    @Test("v1 drops the service date and revision, and an update keeps them from the stored vehicle")
    func v1KeepsWhatItCannotShow() throws {
        let stored = Self.vehicle
        var v1 = V1.Vehicle(canonical: stored)
        v1.tag = "ZZ-999"
        v1.needsMaintenance = false
        let updated = try v1.canonical(updating: stored)
        #expect(updated.plate == "ZZ-999")
        #expect(updated.maintenance.lastServiced == Self.serviced)
        #expect(updated.maintenance.flagged == false)
        #expect(updated.revision == 4)
        let fresh = try v1.canonical()
        #expect(fresh.maintenance.lastServiced == nil)
        #expect(fresh.revision == 1)
    }

    @Test("inputs report every failure under their own version's field names")
    func validationPaths() {
        let v1 = V1.VehicleInput(tag: "", make: "Volvo", model: " ", year: 1700)
        #expect(v1.validationFailures.map(\.path) == ["tag", "model", "year"])
        let v2 = V2.VehicleInput(plate: "AB/12", make: "", model: "FH", modelYear: 2200)
        #expect(v2.validationFailures.map(\.path) == ["plate", "make", "modelYear"])
        let patch = V2.VehiclePatch(plate: String(repeating: "A", count: 17), revision: 0)
        #expect(patch.validationFailures.map(\.path) == ["plate", "revision"])
        #expect(V2.VehiclePatch(revision: 3).isValid)
    }

    @Test("unknown members are found by path, nested ones too")
    func unknownFields() throws {
        let body = try JSONValue(
            parsing: #"{"plate": "A", "modelyear": 2020, "maintenance": {"due": true, "flagged": true}, "extra": 1}"#
        )
        #expect(V2.VehicleInput.fields.unknownPaths(in: body) == ["modelyear", "maintenance.flagged", "extra"])
        #expect(V1.VehicleInput.fields.unknownPaths(in: try JSONValue(parsing: #"{"tag": "A", "year": 1}"#)).isEmpty)
    }

    @Test("a patch changes only the members it has")
    func patch() {
        let stored = Self.vehicle
        let patched = V2.VehiclePatch(model: "FH", maintenance: V2.MaintenanceInput(due: true)).applied(to: stored)
        #expect(patched.model == "FH")
        #expect(patched.plate == stored.plate)
        #expect(patched.maintenance.flagged)
        #expect(patched.maintenance.lastServiced == Self.serviced)
        #expect(V2.VehiclePatch().isEmpty)
        #expect(!V2.VehiclePatch(make: "Scania").isEmpty)
    }

    @Test("due: flagged, or serviced longer ago than the interval; never serviced is not due")
    func maintenancePolicy() throws {
        let policy = MaintenancePolicy(intervalMonths: 6)
        let now = try #require(ISO8601DateFormatter().date(from: "2024-07-01T00:00:00Z"))
        let sevenMonths = try #require(ISO8601DateFormatter().date(from: "2023-12-01T00:00:00Z"))
        let fiveMonths = try #require(ISO8601DateFormatter().date(from: "2024-02-01T00:00:00Z"))
        #expect(policy.isDue(flagged: false, lastServiced: sevenMonths, at: now))
        #expect(!policy.isDue(flagged: false, lastServiced: fiveMonths, at: now))
        #expect(!policy.isDue(flagged: false, lastServiced: nil, at: now))
        #expect(policy.isDue(flagged: true, lastServiced: fiveMonths, at: now))
        #expect(policy.applied(to: Self.vehicle, at: now).maintenance.due)
        #expect(MaintenancePolicy(intervalMonths: 0).intervalMonths == 1)
    }

    @Test("problem details encode as RFC 9457 members")
    func problem() throws {
        let problem = Problem(
            type: ProblemType.validation,
            title: "Validation failed",
            status: 422,
            errors: [Problem.FieldError(path: "plate", message: "must not be empty")]
        )
        let back = try ModelCoding.decode(Problem.self, from: try ModelCoding.encode(problem))
        #expect(back == problem)
        #expect(problem.description.contains("plate: must not be empty"))
    }
}
