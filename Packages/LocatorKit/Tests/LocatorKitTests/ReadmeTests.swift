import Foundation
import LocatorKit
import Testing

// The README's quick start, verbatim between the markers, so it keeps compiling.
// README-BEGIN
protocol Greeter: Sendable { func greet(_ name: String) -> String }
struct PoliteGreeter: Greeter { func greet(_ name: String) -> String { "Good day, \(name)." } }
final class Reception: Sendable {
    let greeter: any Greeter
    init(greeter: any Greeter) { self.greeter = greeter }
}

func quickStart() throws -> String {
    let locator = Locator()
    try locator.register((any Greeter).self) { _ in PoliteGreeter() }
    try locator.register(Reception.self, lifetime: .transient) { r in Reception(greeter: try r.resolve()) }
    let reception = try locator.resolve(Reception.self)
    return reception.greeter.greet("Ada")  // "Good day, Ada."
}
// README-END

struct ReadmeTests {
    @Test func theQuickStartPrintsWhatTheReadmeSays() throws {
        #expect(try quickStart() == "Good day, Ada.")
    }

    @Test func theReadmeShowsExactlyTheCodeThisFileCompiles() throws {
        let here = URL(fileURLWithPath: #filePath)
        let source = try String(contentsOf: here, encoding: .utf8)
        let readme = try String(
            contentsOf: here.deletingLastPathComponent().appendingPathComponent("../../README.md"),
            encoding: .utf8
        )
        let begin = try #require(source.range(of: "// README-BEGIN\n"))
        let end = try #require(source.range(of: "// README-END"))
        let snippet = String(source[begin.upperBound..<end.lowerBound])
        #expect(readme.contains("```swift\n" + snippet + "```"))
    }
}
