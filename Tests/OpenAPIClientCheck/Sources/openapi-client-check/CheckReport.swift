import Foundation

/// The checks' outcomes, written as they come (unbuffered, so a crash loses none): `ok  NAME`, or
/// `FAIL NAME: REASON` on one line.
struct CheckReport {
    private(set) var passed = 0
    private(set) var failed = 0

    /// Runs one check and prints its line; returns what it made, or `nil` when it failed.
    @discardableResult
    mutating func check<Value>(_ name: String, _ body: () async throws -> Value) async -> Value? {
        do {
            let value = try await body()
            passed += 1
            CheckReport.write("ok  \(name)")
            return value
        } catch {
            fail(name, CheckFailure.reason(for: error))
            return nil
        }
    }

    /// A check that cannot run because an earlier one did not make what it needs; it counts as failed.
    mutating func notRun(_ name: String, needs earlier: String) {
        fail(name, "not run: needs \(earlier)")
    }

    var summary: String {
        failed == 0
            ? "OpenAPI client: all \(passed) checks passed"
            : "OpenAPI client: \(failed) of \(passed + failed) checks failed"
    }

    private mutating func fail(_ name: String, _ reason: String) {
        failed += 1
        CheckReport.write("FAIL \(name): \(reason)")
    }

    /// Writes a line to standard output at once, whatever it is connected to.
    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
