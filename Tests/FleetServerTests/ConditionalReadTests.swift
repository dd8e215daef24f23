import FleetServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// v2 reads carry an entity tag and `Cache-Control: max-age=0`, and `If-None-Match` is answered with `304`: a client
/// cache stores fleetd's answers and revalidates them, so no write is ever hidden from it.
struct ConditionalReadTests {
    @Test(arguments: [true, false])
    func aHeldAnswerIsNotModifiedUntilAWriteChangesIt(readCache: Bool) async throws {
        let fixture = try ServerFixture(readCacheBytes: readCache ? 1 << 20 : 0)
        try await fixture.withServer { client in
            let created = try await client.send(
                .post,
                "/v2/vehicles",
                json: #"{"plate": "CR-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#
            )
            let id = try #require(try created.string("id"))
            for uri in ["/v2/vehicles/\(id)", "/v2/vehicles?limit=10", "/v2/vehicles?make=Volvo"] {
                let first = try await client.send(.get, uri, token: nil)
                #expect(first.status == .ok)
                #expect(first.headers[.cacheControl] == "max-age=0")
                let tag = try #require(first.headers[.eTag])
                let again = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified)
                #expect(again.body.readableBytes == 0)
                #expect(again.headers[.eTag] == tag)
                let listed = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: "\"x\", W/\(tag)"])
                #expect(listed.status == .notModified)
                let star = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: "*"])
                #expect(star.status == .notModified)
                let other = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: "\"other\""])
                #expect(other.status == .ok)
                #expect(other.text == first.text)
            }
            let tags = try await ["/v2/vehicles/\(id)", "/v2/vehicles?limit=10"].asyncMap { uri in
                try #require(try await client.send(.get, uri, token: nil).headers[.eTag])
            }
            _ = try await client.send(
                .patch,
                "/v2/vehicles/\(id)",
                json: #"{"model": "FH16"}"#,
                headers: [.ifMatch: "\"1\""]
            )
            for (uri, tag) in zip(["/v2/vehicles/\(id)", "/v2/vehicles?limit=10"], tags) {
                let changed = try await client.send(.get, uri, token: nil, headers: [.ifNoneMatch: tag])
                #expect(changed.status == .ok)
                #expect(changed.text.contains("FH16"))
                #expect(changed.headers[.eTag] != tag)
            }
        }
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
