import LocatorKit
import Testing

protocol Payload: Sendable {
    var value: Int { get }
}

protocol Labelled: Sendable {
    var label: String { get }
}

struct NumberPayload: Payload, Labelled {
    var value: Int
    var label: String { "number \(value)" }
}

struct Envelope: Sendable, Equatable {
    var text: String
}

/// How errors name the protocol parameter types (the runtime's own spelling).
private let payloadName = String(describing: (any Payload).self)
private let labelledName = String(describing: (any Labelled).self)

struct ParameterConversionTests {
    @Test func anExistentialArgumentReachesAFactoryTakingTheProtocol() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "payload \(payload.value)") }
        // Swift opens the existential: the generic resolve sees `NumberPayload`, not `any Payload`.
        let payload: any Payload = NumberPayload(value: 1)
        #expect(try locator.resolve(Envelope.self, params: payload).text == "payload 1")
        #expect(try locator.resolve(Envelope.self, params: payload as any Payload).text == "payload 1")
    }

    @Test func aConcreteArgumentReachesAFactoryTakingAProtocolItConformsTo() throws {
        let locator = Locator()
        try locator.register(Envelope.self, name: "boxed") { (_, payload: any Payload) in
            Envelope(text: "payload \(payload.value)")
        }
        #expect(try locator.resolve(Envelope.self, name: "boxed", params: NumberPayload(value: 2)).text == "payload 2")
        let unnamed = #expect(throws: LocatorError.self) {
            try locator.resolve(Envelope.self, params: NumberPayload(value: 2))
        }
        #expect(unnamed?.code == .notRegistered)
    }

    @Test func anExactSignatureIsPreferredToAConversion() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "protocol") }
        try locator.register(Envelope.self) { (_, payload: NumberPayload) in Envelope(text: "concrete") }
        #expect(try locator.resolve(Envelope.self, params: NumberPayload(value: 1)).text == "concrete")
        let payload: any Payload = NumberPayload(value: 1)
        #expect(try locator.resolve(Envelope.self, params: payload).text == "concrete")
        #expect(try locator.resolve(Envelope.self, params: payload as any Payload).text == "protocol")
    }

    @Test func anOptionalSignatureIsPreferredToAConversion() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "protocol") }
        try locator.register(Envelope.self) { (_, payload: NumberPayload?) in Envelope(text: "optional") }
        #expect(try locator.resolve(Envelope.self, params: NumberPayload(value: 1)).text == "optional")
    }

    @Test func argumentsConvertingToSeveralFactoriesAreAnAmbiguityError() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "payload") }
        try locator.register(Envelope.self) { (_, labelled: any Labelled) in Envelope(text: "labelled") }
        let error = #expect(throws: LocatorError.self) {
            try locator.resolve(Envelope.self, params: NumberPayload(value: 1))
        }
        #expect(error?.code == .ambiguousParams)
        #expect(error?.keyDescription == "Envelope (params: NumberPayload)")
        #expect(error?.description.contains("(\(payloadName)), (\(labelledName))") == true)
        #expect(try locator.resolve(Envelope.self, params: NumberPayload(value: 1) as any Labelled).text == "labelled")
    }

    @Test func aChildsAndItsParentsConvertingFactoriesAreAmbiguousTogether() throws {
        let root = Locator()
        try root.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "root payload") }
        let child = root.child()
        #expect(try child.resolve(Envelope.self, params: NumberPayload(value: 1)).text == "root payload")
        try child.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "child payload") }
        #expect(try child.resolve(Envelope.self, params: NumberPayload(value: 1)).text == "child payload")
        try child.register(Envelope.self) { (_, labelled: any Labelled) in Envelope(text: "child labelled") }
        let error = #expect(throws: LocatorError.self) {
            try child.resolve(Envelope.self, params: NumberPayload(value: 1))
        }
        #expect(error?.code == .ambiguousParams)
    }

    @Test func eachArgumentOfATwoParameterFactoryIsConverted() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload, count: Int) in
            Envelope(text: "payload \(payload.value) × \(count)")
        }
        try locator.register(Envelope.self) { (_, count: Int, labelled: any Labelled) in
            Envelope(text: "\(count) × \(labelled.label)")
        }
        let payload: any Payload = NumberPayload(value: 3)
        #expect(try locator.resolve(Envelope.self, params: payload, 2).text == "payload 3 × 2")
        #expect(try locator.resolve(Envelope.self, params: NumberPayload(value: 4), 2).text == "payload 4 × 2")
        #expect(try locator.resolve(Envelope.self, params: 2, NumberPayload(value: 5)).text == "2 × number 5")
        let wrongSecond = #expect(throws: LocatorError.self) {
            try locator.resolve(Envelope.self, params: NumberPayload(value: 4), "two")
        }
        #expect(wrongSecond?.code == .wrongParams)
        #expect(wrongSecond?.keyDescription == "Envelope (params: NumberPayload, String)")
        let registered = "(\(payloadName), Int), (Int, \(labelledName))"
        #expect(wrongSecond?.description.contains("its factories take parameters \(registered)") == true)
    }

    @Test func aConversionOnlyConsidersFactoriesTakingAsManyParameters() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, pair: (any Payload, Int)) in Envelope(text: "pair") }
        try locator.register(Envelope.self) { (_, payload: any Payload, count: Int) in Envelope(text: "two") }
        #expect(try locator.resolve(Envelope.self, params: (NumberPayload(value: 1), 2)).text == "pair")
        #expect(try locator.resolve(Envelope.self, params: NumberPayload(value: 1), 2).text == "two")
    }

    @Test func asyncResolvesConvertArgumentsToo() async throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) async in
            Envelope(text: "async \(payload.value)")
        }
        try locator.register(Envelope.self) { (_, payload: any Payload, label: String) async in
            Envelope(text: "\(label) \(payload.value)")
        }
        let payload: any Payload = NumberPayload(value: 6)
        #expect(try await locator.resolve(Envelope.self, params: payload).text == "async 6")
        #expect(try await locator.resolve(Envelope.self, params: NumberPayload(value: 7)).text == "async 7")
        #expect(try await locator.resolve(Envelope.self, params: payload, "two").text == "two 6")
        let sync = #expect(throws: LocatorError.self) { try locator.resolve(Envelope.self, params: payload) }
        #expect(sync?.code == .asyncRequired)
    }

    @Test func factoriesConvertTheArgumentsTheyPassToTheirDependencies() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) in Envelope(text: "payload \(payload.value)") }
        try locator.register([Envelope].self, lifetime: .transient) { r in
            [try r.resolve(Envelope.self, params: NumberPayload(value: 8))]
        }
        #expect(try locator.resolve([Envelope].self) == [Envelope(text: "payload 8")])
    }

    @Test func aFailingConvertedFactoryIsNamedByItsRegisteredSignature() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, payload: any Payload) -> Envelope in throw Failure() }
        let error = #expect(throws: LocatorError.self) {
            try locator.resolve(Envelope.self, params: NumberPayload(value: 1))
        }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == ["Envelope (params: \(payloadName))"])
        #expect(error?.underlying as? Failure == Failure())
    }

    @Test func anArgumentThatConvertsToNoFactoryIsStillAWrongParamsError() throws {
        let locator = Locator()
        try locator.register(Envelope.self) { (_, labelled: any Labelled) in Envelope(text: labelled.label) }
        let error = #expect(throws: LocatorError.self) { try locator.resolve(Envelope.self, params: 1) }
        #expect(error?.code == .wrongParams)
        #expect(
            error?.description
                == "LocatorError.wrongParams: Envelope (params: Int): its factories take parameters (\(labelledName))"
        )
    }

    @Test func typedParameterKeysAreNeverConverted() throws {
        let locator = Locator()
        try locator.register(LocatorParamsKey<Envelope, any Payload>("envelope")) { _, payload in
            Envelope(text: "payload \(payload.value)")
        }
        let error = #expect(throws: LocatorError.self) {
            try locator.resolve(LocatorParamsKey<Envelope, NumberPayload>("envelope"), params: NumberPayload(value: 1))
        }
        #expect(error?.code == .wrongParams)
        let key = LocatorParamsKey<Envelope, any Payload>("envelope")
        #expect(try locator.resolve(key, params: NumberPayload(value: 2)).text == "payload 2")
    }
}
