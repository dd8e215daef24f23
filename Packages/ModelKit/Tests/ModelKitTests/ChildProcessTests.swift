import Foundation
import ModelKitTesting
import ProcessTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The child processes tests start: what they read, where their output goes, how they end.
@Suite("Child processes for tests")
struct ChildProcessTests {
    @Test func itCollectsBothStreamsAndTheExitStatus() throws {
        let result = try ChildProcess.run(
            "/bin/sh",
            arguments: ["-c", "printf out; printf err >&2; exit 3"],
            output: .collect,
            error: .collect
        )
        #expect(result.termination == .exited(3))
        #expect(!result.termination.succeeded)
        #expect(result.outputText == "out")
        #expect(result.errorText == "err")
    }

    @Test func aLargeInputPassesThroughWhileTheOutputIsRead() throws {
        // 4 MiB is far more than a pipe holds: writing and reading must go on at once.
        let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let result = try ChildProcess.run("/bin/cat", input: .bytes(bytes), output: .collect)
        #expect(result.termination.succeeded)
        #expect(result.output == bytes)
    }

    @Test func aChildThatReadsNoInputEndsNormallyAndTheTestGoesOn() throws {
        // More than a pipe holds, to a child that never reads it: the writer meets a closed pipe.
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        let result = try ChildProcess.run("/bin/sh", arguments: ["-c", "exit 4"], input: .bytes(bytes))
        #expect(result.termination == .exited(4))
    }

    @Test func theEnvironmentIsExactlyTheOneGiven() throws {
        let result = try ChildProcess.run(
            "/usr/bin/env",
            environment: ["ONLY": "this"],
            output: .collect
        )
        #expect(result.outputText == "ONLY=this\n")
    }

    @Test func outputCanGoToAFileAndStreamAsItComes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let chunks = LockedValue<[UInt8]>([])
        let child = try ChildProcess(
            "/bin/sh",
            arguments: ["-c", "echo to-file; echo streamed >&2"],
            output: .file(path),
            error: .stream { chunk in chunks.update { $0 += chunk } }
        )
        let result = await child.finished()
        #expect(result.termination.succeeded)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "to-file\n")
        #expect(String(decoding: chunks.value, as: UTF8.self) == "streamed\n")
        #expect(result.error.isEmpty, "a streamed stream is not collected as well")
    }

    @Test func aSignalEndsTheChildAndIsReported() async throws {
        let child = try ChildProcess("/bin/sleep", arguments: ["30"])
        child.send(signal: SIGKILL)
        let result = await child.finished()
        #expect(result.termination == .signaled(SIGKILL))
        // Once it has exited, sending a signal does nothing (its identifier may belong to another process).
        child.send(signal: SIGKILL)
        #expect(child.wait().termination == .signaled(SIGKILL))
    }

    @Test func theChildSeesNoDescriptorTheTestHasOpen() throws {
        // A descriptor opened without close-on-exec, as a careless library might.
        let descriptor = open("/dev/null", O_RDONLY)
        try #require(descriptor >= 3)
        defer { close(descriptor) }
        let result = try ChildProcess.run(
            "/bin/sh",
            arguments: ["-c", "cd /proc/$$/fd && echo *"],
            output: .collect
        )
        let open = result.outputText.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        #expect(!open.contains(descriptor), "the child holds \(open)")
        #expect(open.contains(0) && open.contains(1))
    }

    @Test func aMissingProgramIsATypedError() {
        #expect(throws: ChildProcess.StartError.self) {
            try ChildProcess.run("/nonexistent/program")
        }
    }
}
