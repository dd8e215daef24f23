public import ArgumentParser
import FleetClient
import Foundation
import RequestKit
import Synchronization

/// `fleet download URL --to FILE`.
public struct DownloadCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a file, resumably, with a progress bar on a terminal.",
        discussion: """
            The body goes to FILE.partial and is renamed to FILE only when complete, so FILE is never left \
            half-written. A partial file from an interrupted run is continued (Range/If-Range) unless \
            --no-resume is given. URL is a path under the environment (sent with the token) or an absolute URL \
            (sent without it, unless it is the environment's own origin).
            """
    )

    @OptionGroup public var global: GlobalOptions

    @Argument(help: "A path under the environment's URL, or an absolute http(s) URL.")
    public var url: String

    @Option(help: "The file to write.")
    public var to: String

    @Flag(inversion: .prefixedNo, help: "Continue a partial file left by an earlier run.")
    public var resume = true

    public init() {}

    var wantsJSON: Bool { global.json }

    func execute(_ context: CommandContext) async throws {
        let destination = URL(fileURLWithPath: to)
        let bar = ProgressBar(context: context, enabled: context.errorIsTerminal && !global.json)
        try await withServices(global, context) { services in
            let target = try RawTarget(url, environment: services.environment)
            let client =
                target.sameOrigin
                ? try services.requestClient()
                : RequestClient(environment: target.environment, transport: try services.transport())
            let result: DownloadResult
            do {
                result = try await client.download(
                    target.path,
                    to: destination,
                    resume: resume,
                    progress: { bar.update($0) }
                )
            } catch let error as RequestKitError {
                bar.finish()
                if error.code == .unacceptableStatus, let status = error.status {
                    throw FleetClientError.fromStatus(status, problem: nil, url: target.url, underlying: error)
                }
                if error.code == .fileSystem {
                    throw CommandFailure("cannot write \(destination.path): \(error.reason)")
                }
                throw FleetClientError(error, baseURL: target.url, service: target.sameOrigin ? "fleetd" : nil)
            }
            bar.finish()
            if global.json {
                context.output.line(
                    #"{"file": "\#(result.fileURL.path)", "bytes": \#(result.totalBytes), "resumed": \#(result.resumed)}"#
                )
            } else {
                context.output.line(
                    "downloaded \(ProgressBar.size(result.totalBytes)) to \(result.fileURL.path)"
                        + (result.resumed ? " (resumed)" : "")
                )
            }
        }
    }
}

/// A one-line progress bar on standard error, redrawn at most every 100 ms.
final class ProgressBar: Sendable {
    private let context: CommandContext
    private let enabled: Bool
    private let state = Mutex<(lastDraw: ContinuousClock.Instant?, drawn: Bool)>((nil, false))

    init(context: CommandContext, enabled: Bool) {
        self.context = context
        self.enabled = enabled
    }

    func update(_ progress: TransferProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let complete = progress.totalBytesExpected == progress.totalBytesTransferred
        let draw = state.withLock { state -> Bool in
            if !complete, let last = state.lastDraw, now - last < .milliseconds(100) { return false }
            state.lastDraw = now
            state.drawn = true
            return true
        }
        guard draw else { return }
        context.output.write("\r" + Self.line(progress), to: .standardError)
    }

    func finish() {
        guard enabled, state.withLock({ $0.drawn }) else { return }
        context.output.write("\n", to: .standardError)
    }

    static func line(_ progress: TransferProgress, width: Int = 30) -> String {
        let done = size(progress.totalBytesTransferred)
        guard let expected = progress.totalBytesExpected, expected > 0 else { return "\(done) received" }
        let fraction = min(1, Double(progress.totalBytesTransferred) / Double(expected))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "[\(bar)] \(Int(fraction * 100))% \(done) of \(size(expected))"
    }

    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }
}
