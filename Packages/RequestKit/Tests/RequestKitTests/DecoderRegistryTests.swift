import Foundation
import RequestKit
import Testing

struct DecoderRegistryTests {
    /// A registry whose handlers say which pattern matched.
    static let registry: DecoderRegistry = {
        var registry = DecoderRegistry.empty
        for pattern in ["*/*", "text/*", "application/json", "TEXT/CSV", "image/*", "image/png"] {
            registry.register(pattern) { _, _ in .custom(pattern) }
        }
        registry.register("text/*") { _, _ in .custom("text/* again") }
        return registry
    }()

    @Test(arguments: [
        ("application/json", "application/json"),
        ("Application/JSON; charset=utf-8", "application/json"),
        ("application/vnd.fleet.v2+json", "application/json"),
        ("text/csv", "TEXT/CSV"),
        ("text/plain", "text/* again"),
        ("image/png", "image/png"),
        ("image/gif", "image/*"),
        ("application/octet-stream", "*/*"),
        ("application/vnd.fleet+xml", "*/*"),
        (" \tImage/PNG ; name=x", "image/png"),
        ("TEXT/PLAIN", "text/* again"),
    ])
    func theMostSpecificAndMostRecentHandlerWins(contentType: String, expected: String) throws {
        let content = try Self.registry.decode(Data("x".utf8), contentType: contentType)
        guard case .custom(let matched) = content else {
            Issue.record("expected a custom value, got \(content)")
            return
        }
        #expect(matched as? String == expected)
    }

    @Test func withoutAMatchingHandlerTheBodyStaysData() throws {
        var registry = DecoderRegistry.empty
        registry.register("text/*") { _, _ in .custom("text") }
        for contentType in ["application/octet-stream", "textual", nil] {
            let content = try registry.decode(Data("x".utf8), contentType: contentType)
            guard case .data(let data) = content else {
                Issue.record("expected data for \(contentType ?? "no content type"), got \(content)")
                continue
            }
            #expect(data == Data("x".utf8))
        }
        #expect(registry.canDecode(contentType: "text/html"))
        #expect(!registry.canDecode(contentType: "texts/html"))
    }
}
