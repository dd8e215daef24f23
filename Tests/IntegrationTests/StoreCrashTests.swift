import Foundation
import ModelKitTesting
import ProcessTesting
import Testing

/// The crash writer the build put next to the test bundle, or `nil` with the reason its tests are skipped.
private let crashWriter: (url: URL?, reason: String) = {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [products, products.deletingLastPathComponent()] {
        let url = candidate.appendingPathComponent("storekitlite-crash-writer")
        if FileManager.default.isExecutableFile(atPath: url.path) { return (url, "") }
    }
    return (nil, "storekitlite-crash-writer is not built next to \(products.path): run `swift build --build-tests`")
}()

private let postgresURL = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

/// A process committing batches of ten records is killed with SIGKILL at random moments, round after round; after
/// each kill the store opens cleanly, every batch the writer saw committed is there with its exact values, and no
/// batch is there in part.
@Suite(.enabled(if: crashWriter.url != nil, Comment(rawValue: crashWriter.reason)))
struct StoreCrashTests {
    /// Runs the writer on `store` until a random moment, kills it, and returns the last batch it acknowledged.
    static func writeAndKill(_ binary: URL, store: String) async throws -> Int {
        let acknowledged = LockedValue(0)
        let text = LockedValue("")
        let child = try ChildProcess(
            binary.path,
            arguments: ["write", store],
            output: .stream { chunk in
                text.update { buffered in
                    buffered += String(decoding: chunk, as: UTF8.self)
                    guard let end = buffered.lastIndex(of: "\n") else { return }
                    for line in buffered[..<end].split(separator: "\n") where line.hasPrefix("ack ") {
                        if let number = Int(line.dropFirst(4)) { acknowledged.update { $0 = max($0, number) } }
                    }
                    buffered = String(buffered[buffered.index(after: end)...])
                }
            }
        )
        // Some rounds kill the writer while it opens the store, most while it commits.
        try await Task.sleep(for: .milliseconds(Int.random(in: 20...700)))
        child.send(signal: SIGKILL)
        // Every line the writer printed before it died has been read once it is finished.
        _ = await child.finished()
        return acknowledged.value
    }

    /// Runs the writer's `verify` on `store`; `nil` when the store is as it must be, else the failure.
    static func verify(_ binary: URL, store: String, acknowledged: Int) throws -> String? {
        let result = try ChildProcess.run(
            binary.path,
            arguments: ["verify", store, String(acknowledged)],
            output: .collect
        )
        return result.termination.succeeded ? nil : "\(result.termination): \(result.outputText)"
    }

    static func rounds(store: String) async throws {
        let binary = try #require(crashWriter.url)
        var highest = 0
        for round in 1...8 {
            let acknowledged = try await Self.writeAndKill(binary, store: store)
            highest = max(highest, acknowledged)
            let failure = try Self.verify(binary, store: store, acknowledged: highest)
            #expect(failure == nil, "round \(round): \(failure ?? "")")
        }
        #expect(highest > 0, "the writer never committed a batch before it was killed")
    }

    @Test func sqliteKeepsEveryAcknowledgedBatchWhole() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.rounds(store: folder.appendingPathComponent("crash.sqlite").path)
    }

    @Test(.enabled(if: postgresURL != nil, "STOREKITLITE_POSTGRES_URL is not set; Scripts/test-all starts a server"))
    func postgresKeepsEveryAcknowledgedBatchWhole() async throws {
        let url = try #require(postgresURL)
        let schema = "crash_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.rounds(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }
}
