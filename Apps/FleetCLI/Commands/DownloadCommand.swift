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
            (sent without it, unless it is the environment's own origin). On a terminal the progress bar shows the \
            rate and the time left. Ctrl-C stops the download and keeps FILE.partial: the same command resumes it.

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

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
                ? try await services.requestClient()
                : try await services.otherHostClient(target.environment)
            let result: DownloadResult
            let path = target.path
            let resume = resume
            do {
                result = try await context.interruption.watching {
                    try await client.download(path, to: destination, resume: resume, progress: { bar.update($0) })
                }
            } catch is Interruption.Interrupted {
                bar.finish()
                throw Self.interrupted(destination)
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

extension DownloadCommand {
    /// Exit code after Ctrl-C: 128 + SIGINT, as shells report it.
    static let interruptedExitCode: Int32 = 130

    /// What an interrupted download says: what it kept, and how to continue.
    static func interrupted(_ destination: URL) -> CommandFailure {
        let partial = destination.path + ".partial"
        let size = (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? NSNumber)?.int64Value
        guard let size else {
            return CommandFailure("interrupted: nothing was kept", exitCode: interruptedExitCode)
        }
        return CommandFailure(
            "interrupted: the partial file \(partial) (\(ProgressBar.size(size))) is kept; run the same command to "
                + "resume, or add --no-resume to start over",
            exitCode: interruptedExitCode
        )
    }
}

/// A one-line progress bar on standard error, redrawn at most every 100 ms, with the rate and the time left.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
        /// The bytes on disk before this run (a resumed partial file), learnt from the first update.
        var startBytes: Int64?
    }

    private let context: CommandContext
    private let enabled: Bool
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    init(context: CommandContext, enabled: Bool) {
        self.context = context
        self.enabled = enabled
    }

    func update(_ progress: TransferProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let complete = progress.totalBytesExpected == progress.totalBytesTransferred
        let startBytes = state.withLock { state -> Int64? in
            let startBytes = state.startBytes ?? (progress.totalBytesTransferred - progress.bytesTransferred)
            state.startBytes = startBytes
            if !complete, let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
            state.lastDraw = now
            state.drawn = true
            return startBytes
        }
        guard let startBytes else { return }
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(progress.totalBytesTransferred - startBytes) / seconds : nil
        context.output.write("\r" + Self.line(progress, rate: rate) + "\u{1B}[K", to: .standardError)
    }

    func finish() {
        guard enabled, state.withLock({ $0.drawn }) else { return }
        context.output.write("\n", to: .standardError)
    }

    /// `[####------] 40% 1.2 MiB of 3.0 MiB, 850.0 KiB/s, 2s left`; the rate and time left once known.
    static func line(_ progress: TransferProgress, rate: Double?, width: Int = 30) -> String {
        let done = size(progress.totalBytesTransferred)
        let speed = rate.flatMap { $0 > 0 ? ", \(size(Int64($0)))/s" : nil } ?? ""
        guard let expected = progress.totalBytesExpected, expected > 0 else { return "\(done) received\(speed)" }
        let fraction = min(1, Double(progress.totalBytesTransferred) / Double(expected))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var text = "[\(bar)] \(Int(fraction * 100))% \(done) of \(size(expected))\(speed)"
        let remaining = expected - progress.totalBytesTransferred
        if remaining > 0, let rate, rate > 0 {
            text += ", \(duration(Double(remaining) / rate)) left"
        }
        return text
    }

    /// `4s`, `2m 05s`, `1h 02m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(min(seconds.rounded(.up), 359_999))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m " + String(format: "%02ds", total % 60) }
        return "\(total / 3600)h " + String(format: "%02dm", total % 3600 / 60)
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
