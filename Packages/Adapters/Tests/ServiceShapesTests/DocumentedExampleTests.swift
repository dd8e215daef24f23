import Dispatch
import Foundation
import LocatorKit
import RequestKit
import RequestKitTesting
import ServiceShapes
import StoreKitLite
import Testing

/// The examples of the README and the DocC article, with stand-ins for the app's types, so they keep compiling and
/// keep printing what the text says.
struct DocumentedExampleTests {
    struct SystemClock: Clock {}

    struct Plate: Decodable, Sendable {
        let plate: String
    }

    @Test func theCallbackExampleDeliversOnTheQueueItNames() async throws {
        let uiQueue = LabelledQueue("ui")
        try await withClient(handler: { _ in .json(#"[{"plate": "AB 1"}]"#) }) { (client, _) async throws in
            let shown = await withCheckedContinuation { continuation in
                client.get("vehicles", as: [Plate].self, completionQueue: uiQueue.queue) { result in
                    switch result {
                    case .success(let vehicles):
                        continuation.resume(returning: (vehicles.map(\.plate), LabelledQueue.current))
                    case .failure: continuation.resume(returning: ([], LabelledQueue.current))
                    }
                }
            }
            #expect(shown.0 == ["AB 1"])
            #expect(shown.1 == uiQueue.label)
        }
    }

    @Test func theLookupExamplesResolveAndSuggest() throws {
        let locator = Locator()
        try locator.register(SystemClock(), for: (any Clock).self)
        let clock = try locator.service(for: (any Clock).self)
        #expect(clock is SystemClock)

        let stores = ServiceCatalog((any VehicleStore).self, locator: locator)
        try stores.register("sqlite") { _ in SQLiteVehicleStore() }
        try stores.register("memory") { _ in MemoryVehicleStore() }
        #expect(try stores.service(named: "sqlite").kind == "sqlite")
        #expect(throws: ServiceLookupError.self) { try stores.service(named: "sqlit") }
        do {
            _ = try stores.service(named: "sqlit")
        } catch {
            #expect(error.code == .unknownName)
            #expect(error.suggestions == ["sqlite", "memory"])
        }
    }
}
