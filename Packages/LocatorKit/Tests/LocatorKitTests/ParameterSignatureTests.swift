import LocatorKit
import Testing

struct Greeting: Sendable, Equatable {
    var text: String
}

struct ParameterSignatureTests {
    @Test func factoriesWithNoOneAndTwoParametersCoexist() throws {
        let locator = Locator()
        try locator.register(Greeting.self, lifetime: .transient) { _ in Greeting(text: "hello") }
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "hello \(name)") }
        try locator.register(Greeting.self) { (_, name: String, times: Int) in
            Greeting(text: Array(repeating: "hello \(name)", count: times).joined(separator: ", "))
        }
        #expect(try locator.resolve(Greeting.self).text == "hello")
        #expect(try locator.resolve(Greeting.self, params: "Ada").text == "hello Ada")
        #expect(try locator.resolve(Greeting.self, params: "Ada", 2).text == "hello Ada, hello Ada")
    }

    @Test func factoriesOfOneArityWithDifferentParameterTypesCoexist() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "name \(name)") }
        try locator.register(Greeting.self) { (_, number: Int) in Greeting(text: "number \(number)") }
        try locator.register(Greeting.self) { (_, name: String, number: Int) in Greeting(text: "\(name) \(number)") }
        try locator.register(Greeting.self) { (_, number: Int, name: String) in Greeting(text: "\(number) \(name)") }
        #expect(try locator.resolve(Greeting.self, params: "a").text == "name a")
        #expect(try locator.resolve(Greeting.self, params: 1).text == "number 1")
        #expect(try locator.resolve(Greeting.self, params: "a", 1).text == "a 1")
        #expect(try locator.resolve(Greeting.self, params: 1, "a").text == "1 a")
    }

    @Test func aLaterRegistrationReplacesOnlyTheSameSignature() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "first \(name)") }
        try locator.register(Greeting.self) { (_, number: Int) in Greeting(text: "number \(number)") }
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "second \(name)") }
        #expect(try locator.resolve(Greeting.self, params: "a").text == "second a")
        #expect(try locator.resolve(Greeting.self, params: 2).text == "number 2")
    }

    @Test func namesStillSeparateRegistrationsOfOneSignature() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "plain \(name)") }
        try locator.register(Greeting.self, name: "loud") { (_, name: String) in Greeting(text: "HELLO \(name)") }
        #expect(try locator.resolve(Greeting.self, params: "a").text == "plain a")
        #expect(try locator.resolve(Greeting.self, name: "loud", params: "a").text == "HELLO a")
    }

    @Test func typedParameterKeysWithOneIdentifierAndDifferentParameterTypesCoexist() throws {
        let locator = Locator()
        let byName = LocatorParamsKey<Greeting, String>("greeting")
        let byNumber = LocatorParamsKey<Greeting, Int>("greeting")
        try locator.register(byName) { _, name in Greeting(text: "name \(name)") }
        try locator.register(byNumber) { _, number in Greeting(text: "number \(number)") }
        try locator.register(Greeting(text: "typed"), for: LocatorKey<Greeting>("greeting"))
        #expect(try locator.resolve(byName, params: "a").text == "name a")
        #expect(try locator.resolve(byNumber, params: 3).text == "number 3")
        #expect(try locator.resolve(LocatorKey<Greeting>("greeting")).text == "typed")
    }

    @Test func anOptionalParameterAnswersWhenNoExactSignatureIsRegistered() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String?) in Greeting(text: "optional \(name ?? "-")") }
        #expect(try locator.resolve(Greeting.self).text == "optional -")
        #expect(try locator.resolve(Greeting.self, params: "a").text == "optional a")
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "exact \(name)") }
        try locator.register(Greeting(text: "none"))
        #expect(try locator.resolve(Greeting.self, params: "a").text == "exact a")
        #expect(try locator.resolve(Greeting.self).text == "none")
    }

    @Test func aMissingSignatureIsAWrongParamsErrorListingTheRegisteredOnes() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: name) }
        try locator.register(Greeting.self) { (_, name: String, times: Int) in Greeting(text: "\(name)\(times)") }
        let wrongType = #expect(throws: LocatorError.self) { try locator.resolve(Greeting.self, params: 1.5) }
        #expect(wrongType?.code == .wrongParams)
        #expect(wrongType?.keyDescription == "Greeting (params: Double)")
        #expect(wrongType?.description.contains("(String), (String, Int)") == true)
        let none = #expect(throws: LocatorError.self) { try locator.resolve(Greeting.self) }
        #expect(none?.code == .wrongParams)
        #expect(none?.description.contains("registered only with parameters") == true)
        let other = #expect(throws: LocatorError.self) { try locator.resolve(ServiceC.self, params: 1) }
        #expect(other?.code == .notRegistered)
    }

    @Test func twoOptionalSignaturesMakeAParameterlessResolveAmbiguous() throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String?) in Greeting(text: name ?? "") }
        try locator.register(Greeting.self) { (_, number: Int?) in Greeting(text: "\(number ?? 0)") }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(Greeting.self) }
        #expect(error?.code == .wrongParams)
        #expect(error?.description.contains("several factories take an optional parameter") == true)
    }

    @Test func aChildsSignatureAddsToTheParentsInsteadOfHidingThem() throws {
        let root = Locator()
        try root.register(Greeting.self) { (_, name: String) in Greeting(text: "root \(name)") }
        let child = root.child()
        try child.register(Greeting.self) { (_, number: Int) in Greeting(text: "child \(number)") }
        #expect(try child.resolve(Greeting.self, params: "a").text == "root a")
        #expect(try child.resolve(Greeting.self, params: 1).text == "child 1")
    }

    @Test func factoriesResolveParameterisedDependenciesBySignature() async throws {
        let locator = Locator()
        try locator.register(Greeting.self) { (_, name: String) in Greeting(text: "name \(name)") }
        try locator.register(Greeting.self) { (_, first: String, second: String) in Greeting(text: first + second) }
        try locator.register([Greeting].self, lifetime: .transient) { r in
            [try r.resolve(Greeting.self, params: "a"), try r.resolve(Greeting.self, params: "b", "c")]
        }
        #expect(try await locator.resolve([Greeting].self).map(\.text) == ["name a", "bc"])
        try locator.register(Greeting.self) { (_, first: Int, second: Int) async in Greeting(text: "\(first + second)")
        }
        #expect(try await locator.resolve(Greeting.self, params: 1, 2).text == "3")
    }
}
