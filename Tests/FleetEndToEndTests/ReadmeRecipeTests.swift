import FleetTestSupport
import Foundation
import ModelKitTesting
import ProcessTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two-node recipe of `Apps/README.md`, run in bash as written, with what must differ here put in place: the
/// test server's URL on a fresh schema, free ports, temporary data directories, and the fleetd the build made (a
/// `swift build` inside `swift test` would wait for the build folder that the test run holds).
@Suite(
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason)),
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason))
)
struct ReadmeRecipeTests {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Apps/README.md")

    /// The shell block after the recipe's marker.
    static func recipe() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- two-node recipe"), "the README has no two-node recipe marker")
        let lines = text[marker.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("```sh") })
        let end = try #require(lines[(start + 1)...].firstIndex { $0.hasPrefix("```") })
        return lines[(start + 1)..<end].map(String.init)
    }

    @Test("the two-node recipe works when pasted: both nodes healthy on one schema, a write on one read on the other")
    func twoNodeRecipe() async throws {
        let binary = try #require(DaemonProcess.located.binary)
        let server = try #require(TestPostgres.url)
        let (database, schema) = try #require(TestPostgres.freshSchema("recipe"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-recipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ports = [try await releasedPort(), try await releasedPort()]

        var script = try Self.recipe()
        #expect(script.contains { $0.hasPrefix("export FLEETD_DATABASE=") }, "the URL goes in FLEETD_DATABASE")
        #expect(!script.contains { $0.contains("--database") }, "no password on the command line")
        script.removeAll { $0.hasPrefix("swift build") }
        script = script.map { line in
            if line.hasPrefix("export FLEETD_DATABASE=") { return "export FLEETD_DATABASE='\(database)'" }
            return
                line
                .replacingOccurrences(of: ".build/debug/fleetd", with: binary.path)
                .replacingOccurrences(of: "8081", with: String(ports[0]))
                .replacingOccurrences(of: "8082", with: String(ports[1]))
                .replacingOccurrences(of: "/tmp/fleetd-a", with: folder.appendingPathComponent("a").path)
                .replacingOccurrences(of: "/tmp/fleetd-b", with: folder.appendingPathComponent("b").path)
        }
        // What the test needs afterwards: the nodes to stop and the token the recipe made.
        script.append(#"echo; echo "PIDS $(jobs -p | tr '\n' ' ')"; echo "TOKEN $FLEETD_TOKEN""#)
        // To files, not pipes: the nodes the recipe leaves running keep its output streams open.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let outputPath = folder.appendingPathComponent("output").path
        let errorPath = folder.appendingPathComponent("error").path
        let result = try await ChildProcess(
            "/usr/bin/timeout",
            arguments: ["60", "/bin/bash", "-c", script.joined(separator: "\n")],
            environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path],
            output: .file(outputPath),
            error: .file(errorPath)
        )
        .finished()
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errorText = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let pids =
            output.split(separator: "\n").first { $0.hasPrefix("PIDS ") }?.dropFirst(5)
            .split(separator: " ").compactMap { Int32($0) } ?? []
        defer {
            for pid in pids { kill(pid, SIGTERM) }
        }
        try #require(result.termination.succeeded, "\(output)\n\(errorText)")
        #expect(pids.count == 2, "\(output)")
        #expect(output.components(separatedBy: "\"schema\":\"\(schema)\"").count == 3, "\(output)")
        let token = try #require(output.split(separator: "\n").first { $0.hasPrefix("TOKEN ") }?.dropFirst(6))

        // A write on the first node, read on the second.
        var create = URLRequest(url: URL(string: "http://127.0.0.1:\(ports[0])/v2/vehicles")!)  // a literal URL
        create.httpMethod = "POST"
        create.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        create.setValue("application/json", forHTTPHeaderField: "Content-Type")
        create.httpBody = Data(#"{"plate": "RCP-1", "make": "Volvo", "model": "FH", "modelYear": 2020}"#.utf8)
        let (_, created) = try await URLSession.shared.data(for: create)
        #expect((created as? HTTPURLResponse)?.statusCode == 201)
        let (list, _) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(ports[1])/v2/vehicles")!  // a literal URL
        )
        #expect(String(decoding: list, as: UTF8.self).contains("RCP-1"))
        let password = try #require(URLComponents(string: server)?.password)
        let written = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? errorText
        #expect(!written.contains(password) && !output.contains(password), "what the nodes wrote")
    }
}
