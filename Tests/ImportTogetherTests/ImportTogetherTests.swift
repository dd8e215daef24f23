import Foundation
import Hummingbird
import LocatorKit
import ModelKit
import RequestKit
import ServiceShapes
import StoreKitLite
import Testing

/// A Hummingbird service that calls another API is the main use of these packages together, so every module is
/// imported here at once and the names both sides use are written unqualified. A public type of ours that shares a
/// name with one of Hummingbird's makes this target fail to compile.
@Suite("The packages and Hummingbird imported together")
struct ImportTogetherTests {
    @Test("the names both sides use resolve without module qualification")
    func commonNamesResolve() async throws {
        // Hummingbird's side.
        let router = Router()
        router.get("/vehicles") { _, _ in "[]" }
        let served: MediaType = .applicationJson
        let routeParameters: Parameters = [:]
        let answer = Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        let incoming = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/vehicles"),
            body: RequestBody(buffer: ByteBuffer(string: "{}"))
        )

        // Ours: ModelKit, RequestKit, StoreKitLite, LocatorKit.
        let contentType = try MIMEType(parsing: "application/json; charset=utf-8")
        let query: RequestParameters = ["make": "volvo", "year": 2020]
        let outgoing: ClientRequest.Body = .data(Data("{}".utf8))
        let received = ClientResponse.Body(data: Data("{}".utf8))
        let saving: SaveOption = .saveAndPersist
        let locator = Locator()
        try locator.register(contentType)
        // ServiceShapes, the callback and lookup shapes over them.
        let catalog = ServiceCatalog(MIMEType.self, locator: locator)
        try catalog.register(contentType, named: "json")
        let lookupFailure: ServiceLookupError.Code = .unknownName
        let cancel: (CancellableToken) -> Void = { $0.cancel() }

        #expect(served.description == "application/json")
        #expect(routeParameters.isEmpty)
        #expect(answer.status == .ok)
        #expect(incoming.head.path == "/vehicles")
        #expect(contentType.charset == "utf-8")
        #expect(try await catalog.service(named: "json") == contentType)
        #expect(lookupFailure.description == "unknownName")
        _ = cancel
        #expect(query.pairs.map(\.name) == ["make", "year"])
        #expect(outgoing.isReplayable)
        let bytes = try await received.collect(upTo: 16)
        #expect(bytes == Data("{}".utf8))
        #expect(saving == .saveAndPersist)
        let resolved = try await locator.resolve(MIMEType.self)
        #expect(resolved == contentType)
    }
}
