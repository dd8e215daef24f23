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

/// A process committing batches of ten records, from one task or from many at once (whose commits then share
/// transactions), is killed with SIGKILL at random moments, round after round; after each kill the store opens
/// cleanly, every batch the writer saw committed is there with its exact values, and no batch is there in part.
@Suite(.enabled(if: crashWriter.url != nil, Comment(rawValue: crashWriter.reason)))
struct StoreCrashTests {
    /// Runs the writer on `store` with `tasks` concurrent tasks until a random moment, kills it, and returns the
    /// batches it acknowledged.
    static func writeAndKill(_ binary: URL, store: String, tasks: Int) async throws -> Set<Int> {
        let acknowledged = LockedValue(Set<Int>())
        let text = LockedValue("")
        let child = try ChildProcess(
            binary.path,
            arguments: ["write", store, String(tasks)],
            output: .stream { chunk in
                text.update { buffered in
                    buffered += String(decoding: chunk, as: UTF8.self)
                    guard let end = buffered.lastIndex(of: "\n") else { return }
                    for line in buffered[..<end].split(separator: "\n") where line.hasPrefix("ack ") {
                        if let number = Int(line.dropFirst(4)) { acknowledged.update { _ = $0.insert(number) } }
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
    static func verify(_ binary: URL, store: String, acknowledged: Set<Int>) throws -> String? {
        // Thousands of numbers: too many for one argument, so they go in a file.
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("acknowledged-\(UUID().uuidString)")
        try acknowledged.sorted().map(String.init).joined(separator: "\n").write(
            to: list,
            atomically: true,
            encoding: .utf8
        )
        defer { try? FileManager.default.removeItem(at: list) }
        let result = try ChildProcess.run(
            binary.path,
            arguments: ["verify", store, list.path],
            output: .collect
        )
        return result.termination.succeeded ? nil : "\(result.termination): \(result.outputText)"
    }

    static func rounds(store: String, tasks: Int = 1) async throws {
        let binary = try #require(crashWriter.url)
        var acknowledged: Set<Int> = []
        for round in 1...8 {
            acknowledged.formUnion(try await Self.writeAndKill(binary, store: store, tasks: tasks))
            let failure = try Self.verify(binary, store: store, acknowledged: acknowledged)
            #expect(failure == nil, "round \(round): \(failure ?? "")")
        }
        #expect(!acknowledged.isEmpty, "the writer never committed a batch before it was killed")
    }

    @Test(arguments: [1, 32])
    func sqliteKeepsEveryAcknowledgedBatchWhole(tasks: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.rounds(store: folder.appendingPathComponent("crash.sqlite").path, tasks: tasks)
    }

    @Test(.enabled(if: postgresURL != nil, "STOREKITLITE_POSTGRES_URL is not set; Scripts/test-all starts a server"))
    func postgresKeepsEveryAcknowledgedBatchWhole() async throws {
        let url = try #require(postgresURL)
        let schema = "crash_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.rounds(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }
}
