public import Foundation
import ModelKitTesting
import ProcessTesting
import Synchronization

/// A real `fleetd` process on a free loopback port, with its own data directory, started from the binary the
/// build put next to the test bundle (or `$FLEETD_BINARY`).
public final class DaemonProcess: Sendable {
    public static let token = "end-to-end-token"

    public let dataDirectory: URL
    public let port: Int
    private let child: ChildProcess
    private let log: LogBuffer

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }  // an integer port always makes a valid URL
    public var logText: String { log.text.withLock { $0 } }

    /// The fleetd binary, or `nil` with the reason the suite is skipped.
    public static let located: (binary: URL?, reason: String) = binary()

    /// The fleetd binary, or `nil` (with the reason) when it has not been built.
    private static func binary() -> (URL?, String) {
        if let explicit = ProcessInfo.processInfo.environment["FLEETD_BINARY"] {
            return (URL(fileURLWithPath: explicit), "")
        }
        return builtExecutable(named: "fleetd")
    }

    /// An executable of the package the build put next to the test bundle, or `nil` with the reason it is missing.
    public static func builtExecutable(named name: String) -> (URL?, String) {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return (url, "") }
        }
        return (nil, "\(name) is not built next to \(products.path): run `swift build` first")
    }

    /// Starts fleetd and waits until it logs the port it listens on.
    ///
    /// - Parameter extraArguments: more flags (`--database`, say), after the defaults.
    public init(binary: URL, dataDirectory: URL? = nil, extraArguments: [String] = []) async throws {
        self.dataDirectory =
            dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("fleetd-e2e-\(UUID().uuidString)")
        let log = LogBuffer()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let child = try ChildProcess(
            binary.path,
            arguments: [
                "--port", "0", "--data-dir", self.dataDirectory.path, "--token", Self.token, "--log-format", "json",
                "--durability", "normal",
            ] + extraArguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": self.dataDirectory.path],
            error: .stream { chunk in
                let text = log.text.withLock { log in
                    log += String(decoding: chunk, as: UTF8.self)
                    return log
                }
                if let port = Self.listeningPort(in: text) {
                    portContinuation.yield(port)
                    portContinuation.finish()
                }
            }
        )
        // The stream also ends when the daemon exits without reporting a port.
        Task {
            _ = await child.finished()
            portContinuation.finish()
        }
        let found = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await ports.first { _ in true } }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        self.child = child
        self.log = log
        guard let found else {
            child.send(signal: SIGTERM)
            throw DaemonError(message: "fleetd did not report a port; log:\n\(log.text.withLock { $0 })")
        }
        port = found
    }

    /// Sends SIGTERM and waits for the process to exit; returns its exit status (128 plus the signal's number when
    /// a signal ended it).
    public func stop() async -> Int32 {
        child.send(signal: SIGTERM)
        switch await child.finished().termination {
        case .exited(let status): return status
        case .signaled(let signal): return 128 + signal
        }
    }

    /// Kills the process with SIGKILL (no shutdown of any kind) and waits until it is gone.
    public func kill() async {
        child.send(signal: SIGKILL)
        _ = await child.finished()
    }

    public func removeData() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    private static func listeningPort(in log: String) -> Int? {
        for line in log.split(separator: "\n") where line.contains("\"message\":\"listening\"") {
            guard let range = line.range(of: #""fleetd.address":"127.0.0.1:"#) else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            if let port = Int(digits) { return port }
        }
        return nil
    }
}

/// What the daemon wrote to standard error so far.
final class LogBuffer: Sendable {
    let text = Mutex("")
}

public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
