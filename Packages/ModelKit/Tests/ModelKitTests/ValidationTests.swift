import ModelKit
import Testing

private struct Part: Validatable, Sendable {
    var name: String
    var quantity: Int

    static let validations: [Validation<Part>] = [
        .field("name", \.name, .notEmpty),
        .field("quantity", \.quantity, .atLeast(1)),
    ]
}

private struct Car: Validatable, Sendable {
    var plate: String
    var modelYear: Int
    var nickname: String?
    var color: String
    var tags: [String]
    var parts: [Part]
    var spare: Part?
    var main: Part
    var seats: Int
    var doors: Int

    static let validations: [Validation<Car>] = [
        .field(
            "plate",
            \.plate,
            .notEmpty,
            .length(max: 10),
            .matches(/[A-Z]{1,3}-[A-Z]{1,2} [0-9]{1,4}/, "a plate such as B-AB 123")
        ),
        .field("modelYear", \.modelYear, .range(1886...2100)),
        .field("nickname", \.nickname, .required(), .ifPresent(.length(min: 2))),
        .field("color", \.color, .oneOf(["red", "blue"]), .pattern("[a-z]+")),
        .each("tags", \.tags, .notEmpty),
        .each("parts", \.parts),
        .nested("spare", \.spare),
        .nested("main", \.main),
        .custom("doors") { $0.doors <= $0.seats ? nil : "must not exceed seats" },
        .field("seats", \.seats, .custom("must be even") { $0 % 2 == 0 }),
    ]
}

struct ValidationTests {
    private let valid = Car(
        plate: "B-AB 123",
        modelYear: 2021,
        nickname: "Bee",
        color: "red",
        tags: ["daily"],
        parts: [Part(name: "wheel", quantity: 4)],
        spare: nil,
        main: Part(name: "engine", quantity: 1),
        seats: 4,
        doors: 4
    )

    @Test func aValidValuePasses() throws {
        #expect(valid.isValid)
        try valid.validate()
    }

    @Test func everyFailureIsCollectedWithItsPath() {
        var car = valid
        car.plate = ""
        car.modelYear = 1700
        car.nickname = nil
        car.color = "Green"
        car.tags = ["ok", ""]
        car.parts = [Part(name: "wheel", quantity: 4), Part(name: "", quantity: 0)]
        car.spare = Part(name: "", quantity: 1)
        car.doors = 5
        car.seats = 3
        let failures = car.validationFailures.map(\.description)
        #expect(
            failures == [
                "plate: must not be empty",
                "plate: must be a plate such as B-AB 123",
                "modelYear: must be between 1886 and 2100, not 1700",
                "nickname: is required",
                "color: must be one of red, blue",
                "color: must be matching [a-z]+",
                "tags[1]: must not be empty",
                "parts[1].name: must not be empty",
                "parts[1].quantity: must be at least 1, not 0",
                "spare.name: must not be empty",
                "doors: must not exceed seats",
                "seats: must be even",
            ]
        )
    }

    @Test func validateThrowsOneErrorListingAllFailures() {
        var car = valid
        car.plate = "TOO-LONG 12345"
        car.nickname = "B"
        do {
            try car.validate()
            Issue.record("expected a ValidationError")
        } catch {
            #expect(error.failures.count == 3)
            #expect(error.paths == ["plate", "nickname"])
            #expect(
                error.description
                    == "3 validation failures: plate: must have a length of at most 10, not 14; "
                    + "plate: must be a plate such as B-AB 123; nickname: must have a length of at least 2, not 1"
            )
        }
    }

    @Test(arguments: [(0, false), (1, true), (10, true), (11, false)])
    func lengthRangesAreInclusive(length: Int, passes: Bool) {
        let rule = ValidationRule<String>.length(1...10)
        #expect((rule.failure(for: String(repeating: "x", count: length)) == nil) == passes)
    }

    @Test func anInvalidPatternFailsVisibly() {
        let rule = ValidationRule<String>.pattern("[unclosed")
        #expect(rule.failure(for: "anything")?.contains("is not a valid pattern") == true)
    }

    @Test func pathsComposeThroughSeveralLevels() {
        struct Garage: Validatable {
            var cars: [Car]
            static let validations: [Validation<Garage>] = [.each("cars", \.cars)]
        }
        var broken = valid
        broken.parts = [Part(name: "x", quantity: 0)]
        let garage = Garage(cars: [valid, broken])
        #expect(
            garage.validationFailures.map(\.description) == ["cars[1].parts[0].quantity: must be at least 1, not 0"]
        )
    }
}
